
CREATE TABLE clicks (
  ts TIMESTAMP(3), user_id BIGINT, cents INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'datagen', 'number-of-rows' = '40000', 'rows-per-second' = '20000', 'splits' = '2', 'seed' = '11',
  'fields.ts.kind' = 'random', 'fields.ts.step' = '5 ms', 'fields.ts.max-past' = '1 s',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '20',
  'fields.cents.min' = '-1000', 'fields.cents.max' = '1000'
);
CREATE VIEW amounts AS SELECT ts, user_id, CAST(cents AS DOUBLE) / 4 AS amount FROM clicks;
SELECT window_start, user_id, COUNT(*), SUM(amount), AVG(amount)
FROM TABLE(TUMBLE(TABLE amounts, DESCRIPTOR(ts), INTERVAL '20' SECOND))
GROUP BY window_start, window_end, user_id;
