
CREATE TABLE clicks (
  ts TIMESTAMP(3), user_id BIGINT, amount DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'datagen', 'number-of-rows' = '40000', 'rows-per-second' = '20000', 'splits' = '2', 'seed' = '11',
  'fields.ts.kind' = 'random', 'fields.ts.step' = '5 ms', 'fields.ts.max-past' = '1 s',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '20',
  'fields.amount.min' = '0', 'fields.amount.max' = '10'
);
SELECT window_start, user_id, COUNT(*), MAX(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id;
