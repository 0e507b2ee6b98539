-- strand's demo: clicks from the embedded datagen source, counted per user
-- in one-minute tumbling windows of event time. Each window's rows print
-- as the watermark passes its end; the job ends by itself when the
-- generator's 30 000 rows are consumed and the last window has fired.

CREATE TABLE clicks (
  ts      TIMESTAMP(3),
  user_id BIGINT,
  url     STRING,
  amount  DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '30000',
  'rows-per-second' = '6000',
  'seed' = '42',
  'fields.ts.kind' = 'random',
  'fields.ts.start' = '2024-01-01 00:00:03',
  'fields.ts.step' = '10 ms',
  'fields.ts.max-past' = '3 s',
  'fields.user_id.min' = '1',
  'fields.user_id.max' = '4',
  'fields.url.length' = '8',
  'fields.amount.min' = '0',
  'fields.amount.max' = '100'
);

CREATE TABLE per_user (
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  user_id      BIGINT,
  clicks       BIGINT,
  spent        DOUBLE
) WITH ('connector' = 'print');

INSERT INTO per_user
SELECT window_start, window_end, user_id, COUNT(*), ROUND(SUM(amount), 2)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, user_id;
