-- A window whose state is many times the managed memory it is given:
-- 2 million clicks of up to 2 million users in one-hour windows, with
-- memory.managed.size at 16 MB. The window aggregate spills its groups to
-- its Pebble state store when memory runs out and merges them when the
-- window fires; the summary line on stderr counts the windows spilled.
-- The results are those of a run with enough memory. Run:
--   strand run queries/spill.sql
SET 'memory.managed.size' = '16mb';

CREATE TABLE clicks (
  ts      TIMESTAMP(3),
  user_id BIGINT,
  amount  DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '2000000',
  'rows-per-second' = '100000000',
  'seed' = '7',
  'fields.ts.kind' = 'random',
  'fields.ts.step' = '1 ms',
  'fields.ts.max-past' = '1 s',
  'fields.user_id.min' = '1',
  'fields.user_id.max' = '2000000',
  'fields.amount.min' = '0',
  'fields.amount.max' = '10'
);

CREATE TABLE per_user (ws TIMESTAMP(3), user_id BIGINT, clicks BIGINT, spent DOUBLE)
WITH ('connector' = 'blackhole');

INSERT INTO per_user
SELECT window_start, user_id, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' HOUR))
GROUP BY window_start, window_end, user_id;
