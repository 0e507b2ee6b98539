-- Nexmark's three event streams on strand's generator ('connector' =
-- 'nexmark'), with the column names of Flink's nexmark views, so that
-- Flink's query texts run unchanged. The three tables read one event
-- sequence (the same seed, rate and events.num), each its own kind of
-- event: 1 person, 3 auctions and 46 bids in every 50 events.
--
-- first-event.rate is Flink's nexmark TPS (10M events per second of event
-- time); events.num bounds the stream (strand bench sets it with --events).

CREATE TABLE person (
    id  BIGINT,
    name  VARCHAR,
    emailAddress  VARCHAR,
    creditCard  VARCHAR,
    city  VARCHAR,
    state  VARCHAR,
    dateTime  TIMESTAMP(3),
    extra  VARCHAR,
    WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH (
    'connector' = 'nexmark',
    'event-type' = 'person',
    'first-event.rate' = '10000000',
    'events.num' = '10000000'
);

CREATE TABLE auction (
    id  BIGINT,
    itemName  VARCHAR,
    description  VARCHAR,
    initialBid  BIGINT,
    reserve  BIGINT,
    dateTime  TIMESTAMP(3),
    expires  TIMESTAMP(3),
    seller  BIGINT,
    category  BIGINT,
    extra  VARCHAR,
    WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH (
    'connector' = 'nexmark',
    'event-type' = 'auction',
    'first-event.rate' = '10000000',
    'events.num' = '10000000'
);

CREATE TABLE bid (
    auction  BIGINT,
    bidder  BIGINT,
    price  BIGINT,
    channel  VARCHAR,
    url  VARCHAR,
    dateTime  TIMESTAMP(3),
    extra  VARCHAR,
    WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH (
    'connector' = 'nexmark',
    'event-type' = 'bid',
    'first-event.rate' = '10000000',
    'events.num' = '10000000'
);

-- -------------------------------------------------------------------------------------------------
-- Query 12e: Event Time Windows (strand's variant of Query 12)
-- -------------------------------------------------------------------------------------------------
-- Query 12 with event time instead of processing time: the count of bids per user in tumbling
-- windows of 10 seconds of dateTime. Unlike Query 12's, its result does not depend on timing, so
-- strand bench checks it against a hand-written loop.
-- -------------------------------------------------------------------------------------------------

CREATE TABLE discard_sink (
  bidder BIGINT,
  bid_count BIGINT,
  starttime TIMESTAMP(3),
  endtime TIMESTAMP(3)
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO discard_sink
SELECT
    bidder,
    count(*) as bid_count,
    window_start AS starttime,
    window_end AS endtime
FROM TABLE(
        TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end;
