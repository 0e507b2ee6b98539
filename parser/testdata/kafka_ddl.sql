CREATE TABLE kafka_bids (
  auction BIGINT,
  price BIGINT,
  event_time TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  `partition` BIGINT METADATA VIRTUAL,
  `offset` BIGINT METADATA VIRTUAL COMMENT 'kafka offset',
  proc AS PROCTIME(),
  WATERMARK FOR event_time AS event_time - INTERVAL '1' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'bids', 'format' = 'json');
CREATE TEMPORARY SYSTEM FUNCTION IF NOT EXISTS my_udf AS 'com.example.MyUdf' LANGUAGE JAVA;
