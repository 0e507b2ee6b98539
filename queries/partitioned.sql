-- Per-user clicks in one-minute windows, written into a directory per user
-- (PARTITIONED BY, as Flink's filesystem sink: out/by_user/user_id=3/...,
-- the partition column left out of the files), each row naming the file it
-- came from (a METADATA column of the filesystem source). Run from the
-- repository root:
--   strand run queries/partitioned.sql
CREATE TABLE clicks (
  ts      TIMESTAMP(3),
  user_id BIGINT,
  url     STRING,
  amount  DOUBLE,
  src     STRING NOT NULL METADATA FROM 'file.name' VIRTUAL,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'queries/data/clicks.csv', 'format' = 'csv');

CREATE TABLE by_user (ws TIMESTAMP(3), src STRING, clicks BIGINT, user_id BIGINT)
PARTITIONED BY (user_id)
WITH ('connector' = 'filesystem', 'path' = 'out/by_user', 'format' = 'csv');

INSERT INTO by_user
SELECT window_start, src, COUNT(*), user_id
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, user_id, src;
