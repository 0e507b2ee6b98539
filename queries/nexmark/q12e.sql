-- Run with the shared tables: strand run queries/nexmark/ddl.sql queries/nexmark/q12e.sql

-- -------------------------------------------------------------------------------------------------
-- Query 12e: Event Time Windows (strand's variant of Query 12)
-- -------------------------------------------------------------------------------------------------
-- Query 12 with event time instead of processing time: the count of bids per user in tumbling
-- windows of 10 seconds of dateTime. Unlike Query 12's, its result does not depend on timing, so
-- strand bench checks it against a hand-written loop.
-- -------------------------------------------------------------------------------------------------

CREATE TABLE discard_sink (
  bidder BIGINT,
  bid_count BIGINT,
  starttime TIMESTAMP(3),
  endtime TIMESTAMP(3)
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO discard_sink
SELECT
    bidder,
    count(*) as bid_count,
    window_start AS starttime,
    window_end AS endtime
FROM TABLE(
        TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end;
