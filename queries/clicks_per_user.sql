-- Clicks and spending per user in 10-second tumbling windows, from a CSV
-- file into a directory of CSV part files. Run from the repository root:
--   strand run queries/clicks_per_user.sql
CREATE TABLE clicks (
  ts      TIMESTAMP(3),
  user_id BIGINT,
  url     STRING,
  amount  DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'queries/data/clicks.csv', 'format' = 'csv');

CREATE TABLE per_user (ws TIMESTAMP(3), user_id BIGINT, clicks BIGINT, spent DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out/per_user', 'format' = 'csv');

INSERT INTO per_user
SELECT window_start, user_id, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, user_id;
