-- Run with strand bench nexmark --query q13, which writes the side input
-- (nexmark.SideInput: 10000 rows "i,i", as Flink's nexmark SideInputGenerator
-- makes data/side_input.txt) into a temporary directory it fills in for
-- ${NEXMARK_DIR}; to run it with strand run, write the file and replace
-- ${NEXMARK_DIR}:
--   mkdir -p /tmp/nexmark/data && seq 0 9999 | awk '{print $1 "," $1}' > /tmp/nexmark/data/side_input.txt

-- -------------------------------------------------------------------------------------------------
-- Query 13: Bounded Side Input Join (Not in original suite)
-- -------------------------------------------------------------------------------------------------
-- Joins a stream to a bounded side input, modeling basic stream enrichment.
-- -------------------------------------------------------------------------------------------------

-- Flink's text declares the side input with the legacy options
-- 'connector.type' = 'filesystem', 'connector.path' = 'file://${FLINK_HOME}/data/side_input.txt',
-- 'format.type' = 'csv'; here with the filesystem connector's options. strand
-- reads the bounded table whole before joining any bid (see README, Temporal
-- joins), where Flink's lookup join reads the file at the first lookup.
CREATE TABLE side_input (
  key BIGINT,
  `value` VARCHAR
) WITH (
  'connector' = 'filesystem',
  'path' = 'file://${NEXMARK_DIR}/data/side_input.txt',
  'format' = 'csv'
);

CREATE TABLE discard_sink (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  dateTime  TIMESTAMP(3),
  `value`  VARCHAR
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO discard_sink
SELECT
    B.auction,
    B.bidder,
    B.price,
    B.dateTime,
    S.`value`
FROM (SELECT *, PROCTIME() as p_time FROM bid) B
JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S
ON mod(B.auction, 10000) = S.key;
