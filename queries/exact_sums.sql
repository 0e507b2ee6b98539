-- Exact DOUBLE sums: SUM and AVG of FLOAT and DOUBLE keep the exact sum of
-- the values and round it once, so a result does not depend on the order
-- of the rows (nor on the parallelism, nor on a recovery). Run from the
-- repository root:
--   strand run queries/exact_sums.sql
-- Account 1 adds 1e16, 1, 1 and -1e16: 2.0 here, where adding doubles in
-- the file's order gives 0.0 (1e16 + 1 rounds back to 1e16). Account 2
-- adds 0.1 ten times: 1.0 and an average of 0.1, where adding in order
-- gives 0.9999999999999999 and 0.09999999999999999.
CREATE TABLE ledger (
  ts      TIMESTAMP(3),
  account BIGINT,
  amount  DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'queries/data/ledger.csv', 'format' = 'csv');

SELECT window_start, account, COUNT(*) AS n, SUM(amount) AS total, AVG(amount) AS average
FROM TABLE(TUMBLE(TABLE ledger, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, account;
