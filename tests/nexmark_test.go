package tests

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/exec/connector"
	"github.com/strandsql/strand/session"
)

const nexmarkBidDDL = `CREATE TABLE b (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  dt AS dateTime + INTERVAL '1' SECOND,
  pp AS price * 2,
  WATERMARK FOR dt AS dt - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'event-type' = 'bid', 'events.num' = '3000', 'first-event.rate' = '1000', 'seed' = '3');
`

// TestNexmarkReadsOnlyNeededColumns checks that a query over a nexmark
// table, whose source reads only the columns the query needs (computed
// columns, their inputs and the watermark's included), gets the values
// the generator makes for those columns.
func TestNexmarkReadsOnlyNeededColumns(t *testing.T) {
	type bid struct{ auction, bidder, price, ts int64 }
	var bids []bid
	opts := map[string]string{"events.num": "3000", "first-event.rate": "1000", "seed": "3"}
	err := connector.GenerateBids(opts, []string{"auction", "bidder", "price", "dateTime"}, 1000, func(b *connector.Bids) error {
		for i := 0; i < b.Len; i++ {
			bids = append(bids, bid{b.Auction[i], b.Bidder[i], b.Price[i], b.DateTime[i]})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000") }

	var rows, windows []string
	sums := map[int64][2]int64{}
	for _, b := range bids {
		if b.auction%3 == 0 {
			rows = append(rows, fmt.Sprintf("+I[%d, %d, %s]", b.bidder, 2*b.price, ts(b.ts+1000)))
		}
		w := (b.ts + 1000) / 1000 * 1000
		s := sums[w]
		sums[w] = [2]int64{s[0] + 1, s[1] + 2*b.price}
	}
	for w, s := range sums {
		windows = append(windows, fmt.Sprintf("+I[%s, %d, %d]", ts(w), s[0], s[1]))
	}

	for _, c := range []struct {
		query, reads string
		want         []string
	}{
		{"SELECT bidder, pp, dt FROM b WHERE MOD(auction, 3) = 0", "reads [auction, bidder, price, dateTime]", rows},
		{"SELECT window_start, COUNT(*), SUM(pp) FROM TABLE(TUMBLE(TABLE b, DESCRIPTOR(dt), INTERVAL '1' SECOND)) GROUP BY window_start, window_end",
			"reads [price, dateTime]", windows},
	} {
		var out, log bytes.Buffer
		sess := session.New(&out, &log)
		sess.Parallelism = 2
		if err := sess.ExecScript(context.Background(), nexmarkBidDDL+"EXPLAIN "+c.query+";"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), c.reads) {
			t.Errorf("%s: the plan does not say %q:\n%s", c.query, c.reads, out.String())
		}
		out.Reset()
		if err := sess.ExecScript(context.Background(), c.query+";"); err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSpace(out.String()), "\n")
		sort.Strings(got)
		sort.Strings(c.want)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: %d rows, want %d; first %q, want %q", c.query, len(got), len(c.want), got[0], c.want[0])
		}
	}
}
