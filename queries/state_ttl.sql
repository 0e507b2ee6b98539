-- State TTL (Flink's table.exec.state.ttl): each user's distinct pages and
-- clicks, and each page's two biggest spenders, over the whole stream, with
-- state not written for a minute of event time expiring (the operators
-- read the clicks' rowtime, so the TTL runs in event time and the result
-- is the same at any parallelism). Run from the repository root:
--   strand run queries/state_ttl.sql
SET 'table.exec.state.ttl' = '1 min';

CREATE TABLE clicks (
  ts      TIMESTAMP(3),
  user_id BIGINT,
  url     STRING,
  amount  DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'queries/data/clicks.csv', 'format' = 'csv');

SELECT user_id, COUNT(DISTINCT url) AS pages, COUNT(*) AS clicks
FROM clicks GROUP BY user_id;

SELECT url, user_id, amount, rownum FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY url ORDER BY amount DESC) AS rownum
  FROM clicks
) WHERE rownum <= 2;
