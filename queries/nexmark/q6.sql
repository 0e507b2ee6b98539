-- Run with the shared tables: strand run queries/nexmark/ddl.sql queries/nexmark/q6.sql

-- -------------------------------------------------------------------------------------------------
-- Query 6: Average Selling Price by Seller
-- -------------------------------------------------------------------------------------------------
-- What is the average selling price per seller for their last 10 closed auctions.
-- Shares the same 'winning bids' core as for Query4, and illustrates a specialized combiner.
--
-- strand's text: Flink's nexmark has none that runs (its q6.sql is an OVER window over the
-- winning bids, which are an updating result, and OVER windows take only appends). As the
-- Nexmark specification defines it: an auction's selling price is its winning bid, the highest
-- bid at or above its reserve placed between its start and its expiry (the earliest of equal
-- ones); a seller's last 10 auctions are those whose winning bids are the latest, as in Beam's
-- Query6; the average is Flink's AVG of a BIGINT, a BIGINT. The winning bids are a Top-1 per
-- auction over the join of Query 9, the last 10 a Top-10 per seller over them, both updating
-- as bids come: while the input runs, an auction counts with its highest bid so far, and at the
-- end of a bounded input, when every auction has closed, the result is the specification's.
-- -------------------------------------------------------------------------------------------------

CREATE TABLE nexmark_q6 (
  seller  BIGINT,
  avg_price  BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q6
SELECT seller, AVG(price) AS avg_price
FROM (
    SELECT seller, price,
        ROW_NUMBER() OVER (PARTITION BY seller ORDER BY bid_dateTime DESC) AS recency
    FROM (
        SELECT A.seller, B.price, B.`dateTime` AS bid_dateTime,
            ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.`dateTime` ASC) AS rownum
        FROM auction A, bid B
        WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
            AND B.price >= A.reserve
    )
    WHERE rownum <= 1
)
WHERE recency <= 10
GROUP BY seller;
