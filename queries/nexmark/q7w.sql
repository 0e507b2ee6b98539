-- Run with the shared tables: strand run queries/nexmark/ddl.sql queries/nexmark/q7w.sql

-- -------------------------------------------------------------------------------------------------
-- Query 7w: Highest Bid, the windowed half of Query 7 (strand's variant)
-- -------------------------------------------------------------------------------------------------
-- The highest bid price per tumbling window of 10 seconds: the subquery B1 of Query 7 (q7.sql
-- is the whole query, which joins it back to the bids), measured on its own against a
-- hand-written baseline.
-- -------------------------------------------------------------------------------------------------

CREATE TABLE nexmark_q7w (
  maxprice  BIGINT,
  dateTime  TIMESTAMP(3)
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q7w
SELECT MAX(price) AS maxprice, window_end as dateTime
FROM TABLE(
        TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
