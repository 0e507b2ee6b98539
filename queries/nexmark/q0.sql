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
-- Query 0: Pass through (Not in original suite)
-- -------------------------------------------------------------------------------------------------
-- This measures the monitoring overhead of the Flink SQL implementation including the source generator.
-- Using `bid` events here, as they are most numerous with default configuration.
-- -------------------------------------------------------------------------------------------------

CREATE TABLE nexmark_q0 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  dateTime  TIMESTAMP(3),
  extra  VARCHAR
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q0
SELECT auction, bidder, price, dateTime, extra FROM bid;
