-- Clicks per user over the last 20 seconds, every 10 seconds: a sliding
-- (HOP) window, computed by slicing. Run from the repository root:
--   strand run queries/hop_per_user.sql
CREATE TABLE clicks (
  ts TIMESTAMP(3), user_id BIGINT, url STRING, amount DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'queries/data/clicks.csv', 'format' = 'csv');

SELECT window_start, window_end, user_id, COUNT(*) AS clicks
FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '20' SECOND))
GROUP BY window_start, window_end, user_id;
