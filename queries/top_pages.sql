-- The three most clicked pages of every 10-second window (window Top-N,
-- Flink's ROW_NUMBER form), and the two biggest spenders of each window
-- (strand's ORDER BY ... LIMIT shorthand, per window). Run from the
-- repository root:
--   strand run queries/top_pages.sql
CREATE TABLE clicks (
  ts      TIMESTAMP(3),
  user_id BIGINT,
  url     STRING,
  amount  DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'queries/data/clicks.csv', 'format' = 'csv');

SELECT window_start, url, clicks, rownum FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY clicks DESC) AS rownum
  FROM (
    SELECT window_start, window_end, url, COUNT(*) AS clicks
    FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
    GROUP BY window_start, window_end, url)
) WHERE rownum <= 3;

SELECT window_start, user_id, SUM(amount) AS spent
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, user_id
ORDER BY spent DESC LIMIT 2;
