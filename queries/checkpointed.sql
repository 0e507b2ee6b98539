-- Exactly-once checkpoints: per-user clicks in one-minute windows, written
-- as CSV files that become visible only when a checkpoint commits them.
-- A checkpoint is due every second, and each starts at least half a second
-- after the last one ended (execution.checkpointing.min-pause, Flink's
-- key), so that a job slowed down by a busy machine still processes rows
-- between checkpoints. The summary line counts the checkpoints taken.
-- Run from the repository root:
--   strand run queries/checkpointed.sql
SET 'execution.checkpointing.interval' = '1 s';
SET 'execution.checkpointing.min-pause' = '500 ms';

CREATE TABLE clicks (
  ts      TIMESTAMP(3),
  user_id BIGINT,
  url     STRING,
  amount  DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '9000',
  'rows-per-second' = '3000',
  'seed' = '7',
  'fields.ts.kind' = 'sequence',
  'fields.ts.start' = '2024-01-01 00:00:00',
  'fields.ts.step' = '10 ms',
  'fields.user_id.min' = '1',
  'fields.user_id.max' = '4',
  'fields.url.length' = '8',
  'fields.amount.min' = '0',
  'fields.amount.max' = '100'
);

CREATE TABLE per_user (ws TIMESTAMP(3), user_id BIGINT, clicks BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out/checkpointed', 'format' = 'csv');

INSERT INTO per_user
SELECT window_start, user_id, COUNT(*)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, user_id;
