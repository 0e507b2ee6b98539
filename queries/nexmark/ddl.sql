-- Nexmark's three event streams on strand's generator ('connector' =
-- 'nexmark'), with the column names of Flink's nexmark views, so that
-- Flink's query texts run unchanged. The three tables read one event
-- sequence (the same seed, rate and events.num), each its own kind of
-- event: 1 person, 3 auctions and 46 bids in every 50 events.
--
-- first-event.rate is Flink's nexmark TPS (10M events per second of event
-- time); events.num bounds the stream (strand bench sets it with --events).
--
-- The three are one watermark alignment group: a generator subtask more
-- than 5 s of event time ahead of the slowest waits. Without it nothing
-- bounds how far the subtasks drift apart (seconds), and every window
-- between the slowest one's watermark and the fastest one's rows stays
-- open downstream (a third 10 s window, its state spilled, costs a run
-- 15-60%: see docs/performance.md). Waiting changes when rows are read, never which
-- are late, so the results are the same.

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
    'events.num' = '10000000',
    'scan.watermark.alignment.group' = 'nexmark',
    'scan.watermark.alignment.max-drift' = '5 s'
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
    'events.num' = '10000000',
    'scan.watermark.alignment.group' = 'nexmark',
    'scan.watermark.alignment.max-drift' = '5 s'
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
    'events.num' = '10000000',
    'scan.watermark.alignment.group' = 'nexmark',
    'scan.watermark.alignment.max-drift' = '5 s'
);
