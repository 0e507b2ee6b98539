package oracle

// oracle is one Nexmark query's reference.
type oracle struct {
	// duck is DuckDB's formulation over the tables person, auction and
	// bid; its rows are compared with strand's final result.
	duck string
	// bidderTotals, instead of duck, checks q12's invariants (see
	// checkProcTime).
	bidderTotals bool
	// skip says why the query is not checked; the test fails if the
	// query's file appears, so that its oracle gets written then.
	skip string
}

// Windows are written out on epoch milliseconds: a row at ms is in the
// tumbling window of size s starting at ms // s * s (times are after the
// epoch, so // is floor), in the hopping windows of slide d and size s
// starting at ms // d * d - k * d for k in [0, s/d), and epoch_ms(start)
// makes the TIMESTAMP again. Flink's AVG of a BIGINT is a BIGINT, the sum
// divided by the count in long arithmetic (truncated; all prices are
// positive, so // is the same).
var oracles = map[string]oracle{
	"q0": {duck: `SELECT auction, bidder, price, dateTime, extra FROM bid`},

	"q1": {duck: `SELECT auction, bidder, CAST(0.908 * price AS DECIMAL(23, 3)), dateTime, extra FROM bid`},

	"q2": {duck: `SELECT auction, price FROM bid WHERE auction % 123 = 0`},

	"q3": {duck: `
		SELECT P.name, P.city, P.state, A.id
		FROM auction A JOIN person P ON A.seller = P.id
		WHERE A.category = 10 AND P.state IN ('OR', 'ID', 'CA')`},

	"q4": {duck: `
		WITH closed AS (
			SELECT A.id, A.category, max(B.price) AS final
			FROM auction A JOIN bid B ON A.id = B.auction
			WHERE B.dateTime >= A.dateTime AND B.dateTime <= A.expires
			GROUP BY A.id, A.category)
		SELECT category, (sum(final) // count(final))::BIGINT FROM closed GROUP BY category`},

	// q6 as the Nexmark specification defines it, formulated apart from
	// queries/nexmark/q6.sql: each auction's winning bid is the highest
	// at or above the reserve (the earliest of equal ones) between its
	// start and its expiry; a seller's average is a moving average over
	// its last 10 winning bids by their time, read at its latest one.
	"q6": {duck: `
		WITH winners AS (
			SELECT A.seller, B.dateTime AS bt, B.price
			FROM auction A JOIN bid B ON A.id = B.auction
			WHERE B.dateTime >= A.dateTime AND B.dateTime <= A.expires AND B.price >= A.reserve
			QUALIFY row_number() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.dateTime) = 1),
		moving AS (
			SELECT seller, bt,
				sum(price) OVER last10 // count(price) OVER last10 AS avg_price
			FROM winners
			WINDOW last10 AS (PARTITION BY seller ORDER BY bt ROWS BETWEEN 9 PRECEDING AND CURRENT ROW))
		SELECT seller, avg_price::BIGINT FROM moving
		QUALIFY row_number() OVER (PARTITION BY seller ORDER BY bt DESC) = 1`},

	"q7": {duck: `
		WITH maxes AS (
			SELECT epoch_ms(dateTime) // 10000 * 10000 AS ws, max(price) AS maxprice FROM bid GROUP BY ws)
		SELECT B.auction, B.bidder, B.price, B.dateTime, B.extra
		FROM bid B JOIN maxes M ON B.price = M.maxprice
		WHERE epoch_ms(B.dateTime) BETWEEN M.ws AND M.ws + 10000`},

	"q7w": {duck: `
		SELECT max(price), epoch_ms(epoch_ms(dateTime) // 10000 * 10000 + 10000) FROM bid
		GROUP BY epoch_ms(dateTime) // 10000`},

	"q5": {duck: `
		WITH hops AS (
			SELECT auction, epoch_ms(dateTime) // 2000 * 2000 - k * 2000 AS ws
			FROM bid, range(0, 5) AS r(k)),
		counts AS (SELECT auction, ws, count(*) AS num FROM hops GROUP BY auction, ws),
		maxes AS (SELECT ws, max(num) AS maxn FROM counts GROUP BY ws)
		SELECT C.auction, C.num FROM counts C JOIN maxes M ON C.ws = M.ws WHERE C.num >= M.maxn`},

	"q8": {duck: `
		WITH P AS (SELECT DISTINCT id, name, epoch_ms(dateTime) // 10000 AS w FROM person),
		A AS (SELECT DISTINCT seller, epoch_ms(dateTime) // 10000 AS w FROM auction)
		SELECT P.id, P.name, epoch_ms(P.w * 10000) FROM P JOIN A ON P.id = A.seller AND P.w = A.w`},

	"q9": {duck: `
		SELECT A.id, A.itemName, A.description, A.initialBid, A.reserve, A.dateTime, A.expires, A.seller, A.category, A.extra,
			B.auction, B.bidder, B.price, B.dateTime, B.extra
		FROM auction A JOIN bid B ON A.id = B.auction
		WHERE B.dateTime >= A.dateTime AND B.dateTime <= A.expires
		QUALIFY row_number() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.dateTime) = 1`},

	"q10": {duck: `SELECT auction, bidder, price, dateTime, extra, strftime(dateTime, '%Y-%m-%d'), strftime(dateTime, '%H:%M') FROM bid`},

	// A bidder's session starts at a bid more than 10 s after its
	// previous one, and ends 10 s after its last: sessions [t, t+10 s)
	// that touch merge, as Flink's TimeWindow.intersects decides.
	"q11": {duck: `
		WITH gaps AS (
			SELECT bidder, epoch_ms(dateTime) AS ms,
				CASE WHEN epoch_ms(dateTime) - lag(epoch_ms(dateTime)) OVER (PARTITION BY bidder ORDER BY dateTime) <= 10000
					THEN 0 ELSE 1 END AS starts
			FROM bid),
		sessions AS (
			SELECT bidder, ms, sum(starts) OVER (PARTITION BY bidder ORDER BY ms ROWS UNBOUNDED PRECEDING) AS session
			FROM gaps)
		SELECT bidder, count(*), epoch_ms(min(ms)), epoch_ms(max(ms) + 10000) FROM sessions GROUP BY bidder, session`},

	"q12": {bidderTotals: true},

	"q12e": {duck: `
		SELECT bidder, count(*), epoch_ms(epoch_ms(dateTime) // 10000 * 10000), epoch_ms(epoch_ms(dateTime) // 10000 * 10000 + 10000)
		FROM bid GROUP BY bidder, epoch_ms(dateTime) // 10000`},

	// q13's side input holds the rows (i, 'i') for i in [0, 10000), as
	// Flink's nexmark generates it (writeSideInput); strand reads it whole
	// before joining, so its processing-time join is a plain join.
	"q13": {duck: `
		WITH side_input AS (SELECT i AS key, CAST(i AS VARCHAR) AS value FROM range(10000) t(i))
		SELECT B.auction, B.bidder, B.price, B.dateTime, S.value
		FROM bid B JOIN side_input S ON B.auction % 10000 = S.key`},

	"q14": {duck: `
		SELECT auction, bidder, CAST(0.908 * price AS DECIMAL(23, 3)),
			CASE WHEN hour(dateTime) BETWEEN 8 AND 18 THEN 'dayTime'
				WHEN hour(dateTime) <= 6 OR hour(dateTime) >= 20 THEN 'nightTime'
				ELSE 'otherTime' END,
			dateTime, extra, length(extra) - length(replace(extra, 'c', ''))
		FROM bid WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000`},

	"q15": {duck: `
		SELECT strftime(dateTime, '%Y-%m-%d'), ` + priceRanks + `
		FROM bid GROUP BY strftime(dateTime, '%Y-%m-%d')`},

	"q16": {duck: `
		SELECT channel, strftime(dateTime, '%Y-%m-%d'), max(strftime(dateTime, '%H:%M')), ` + priceRanks + `
		FROM bid GROUP BY channel, strftime(dateTime, '%Y-%m-%d')`},

	"q17": {duck: `
		SELECT auction, strftime(dateTime, '%Y-%m-%d'), count(*),
			count(*) FILTER (price < 10000), count(*) FILTER (price >= 10000 AND price < 1000000), count(*) FILTER (price >= 1000000),
			min(price), max(price), (sum(price) // count(price))::BIGINT, sum(price)::BIGINT
		FROM bid GROUP BY auction, strftime(dateTime, '%Y-%m-%d')`},

	"q18": {duck: `
		SELECT auction, bidder, price, channel, url, dateTime, extra FROM bid
		QUALIFY row_number() OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC) = 1`},

	// Ties on price are ordered by the other columns, ascending, in the
	// table's order: strand's rule (see doc.go).
	"q19": {duck: `
		SELECT *, row_number() OVER (PARTITION BY auction ORDER BY price DESC, bidder, channel, url, dateTime, extra) AS rank_number
		FROM bid QUALIFY rank_number <= 10`},

	"q20": {duck: `
		SELECT B.auction, B.bidder, B.price, B.channel, B.url, B.dateTime, B.extra,
			A.itemName, A.description, A.initialBid, A.reserve, A.dateTime, A.expires, A.seller, A.category, A.extra
		FROM bid B JOIN auction A ON B.auction = A.id WHERE A.category = 10`},

	// REGEXP_EXTRACT is NULL where the pattern does not match (DuckDB's
	// regexp_extract gives '').
	"q21": {duck: `
		WITH ids AS (
			SELECT *, CASE WHEN regexp_matches(url, '(&|^)channel_id=([^&]*)')
				THEN regexp_extract(url, '(&|^)channel_id=([^&]*)', 2) END AS id
			FROM bid)
		SELECT auction, bidder, price, channel,
			CASE lower(channel) WHEN 'apple' THEN '0' WHEN 'google' THEN '1' WHEN 'facebook' THEN '2' WHEN 'baidu' THEN '3' ELSE id END
		FROM ids WHERE id IS NOT NULL OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu')`},

	// SPLIT_INDEX(s, '/', i) is the (i+1)-th piece, NULL past the last.
	"q22": {duck: `
		SELECT auction, bidder, price, channel,
			string_split(url, '/')[4], string_split(url, '/')[5], string_split(url, '/')[6]
		FROM bid`},
}

// priceRanks are q15's and q16's counts: bids, bidders and auctions, in
// all and in three price ranges.
const priceRanks = `
	count(*),
	count(*) FILTER (price < 10000),
	count(*) FILTER (price >= 10000 AND price < 1000000),
	count(*) FILTER (price >= 1000000),
	count(DISTINCT bidder),
	count(DISTINCT bidder) FILTER (price < 10000),
	count(DISTINCT bidder) FILTER (price >= 10000 AND price < 1000000),
	count(DISTINCT bidder) FILTER (price >= 1000000),
	count(DISTINCT auction),
	count(DISTINCT auction) FILTER (price < 10000),
	count(DISTINCT auction) FILTER (price >= 10000 AND price < 1000000),
	count(DISTINCT auction) FILTER (price >= 1000000)`
