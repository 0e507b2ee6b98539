-- Query 16: Channel Statistics Report (Not in original suite)
CREATE TABLE nexmark_q16 (
    channel VARCHAR,
    `day` VARCHAR,
    `minute` VARCHAR,
    total_bids BIGINT
) WITH (
    'connector' = 'blackhole'
);

INSERT INTO nexmark_q16
SELECT
    channel,
    DATE_FORMAT(dateTime, 'yyyy-MM-dd') as `day`,
    max(DATE_FORMAT(dateTime, 'HH:mm')) as `minute`,
    count(*) AS total_bids,
    count(*) filter (where price < 10000) AS rank1_bids,
    count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
    count(distinct bidder) AS total_bidders,
    count(distinct bidder) filter (where price >= 1000000) AS rank3_bidders,
    count(distinct auction) filter (where price >= 10000 and price < 1000000) AS rank2_auctions
FROM bid
GROUP BY channel, DATE_FORMAT(dateTime, 'yyyy-MM-dd');
