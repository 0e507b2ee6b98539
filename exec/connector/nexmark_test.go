package connector

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

var (
	nexBidSchema = types.Schema{
		{Name: "auction", Type: types.TBigInt}, {Name: "bidder", Type: types.TBigInt}, {Name: "price", Type: types.TBigInt},
		{Name: "channel", Type: types.TString}, {Name: "url", Type: types.TString}, {Name: "dateTime", Type: types.TTimestamp},
		{Name: "extra", Type: types.TString},
	}
	nexAuctionSchema = types.Schema{
		{Name: "id", Type: types.TBigInt}, {Name: "itemName", Type: types.TString}, {Name: "description", Type: types.TString},
		{Name: "initialBid", Type: types.TBigInt}, {Name: "reserve", Type: types.TBigInt}, {Name: "dateTime", Type: types.TTimestamp},
		{Name: "expires", Type: types.TTimestamp}, {Name: "seller", Type: types.TBigInt}, {Name: "category", Type: types.TBigInt},
		{Name: "extra", Type: types.TString},
	}
	nexPersonSchema = types.Schema{
		{Name: "id", Type: types.TBigInt}, {Name: "name", Type: types.TString}, {Name: "emailAddress", Type: types.TString},
		{Name: "creditCard", Type: types.TString}, {Name: "city", Type: types.TString}, {Name: "state", Type: types.TString},
		{Name: "dateTime", Type: types.TTimestamp}, {Name: "extra", Type: types.TString},
	}
)

const nexBase = int64(1704067200000) // the default base-time, 2024-01-01 00:00:00

func nexSchemaOf(kind string) types.Schema {
	switch strings.ToLower(kind) {
	case "person":
		return nexPersonSchema
	case "auction":
		return nexAuctionSchema
	}
	return nexBidSchema
}

// nexTable is a nexmark table of all the kind's columns. Unless kv says
// otherwise it makes 1e5 events at 1000 events per second, so that event
// n's dateTime is base-time + n ms and rows can be ordered by event.
func nexTable(kind string, kv ...string) Table {
	o := map[string]string{"connector": "nexmark", "event-type": kind, "events.num": "100000", "first-event.rate": "1000"}
	for i := 0; i+1 < len(kv); i += 2 {
		o[kv[i]] = kv[i+1]
	}
	return Table{Name: kind, Schema: nexSchemaOf(kind), Options: o}
}

// nexRow is one generated row: its values (int64 or string, by column
// position), its rendering, and its event number (from dateTime).
type nexRow struct {
	n      int64
	schema types.Schema
	ints   []int64
	strs   []string
	text   string
}

func (r nexRow) int(col string) int64  { return r.ints[r.schema.Index(col)] }
func (r nexRow) str(col string) string { return r.strs[r.schema.Index(col)] }

func (r nexRow) String() string {
	if r.text != "" {
		return r.text
	}
	return fmt.Sprint(r.ints, r.strs)
}

func nexRowsOf(t testing.TB, s types.Schema, rec arrow.RecordBatch) []nexRow {
	t.Helper()
	checkSchema(t, s, rec)
	nr, nc := int(rec.NumRows()), len(s)
	out := make([]nexRow, nr)
	ints, strs := make([]int64, nr*nc), make([]string, nr*nc)
	for i := range out {
		out[i] = nexRow{n: -1, schema: s, ints: ints[i*nc : (i+1)*nc], strs: strs[i*nc : (i+1)*nc]}
		if nexWithText {
			out[i].text = string(FormatRow(nil, rec, i))
		}
	}
	for j, col := range rec.Columns() {
		if col.NullN() != 0 {
			t.Fatalf("NULL in column %s", s[j].Name)
		}
		switch a := col.(type) {
		case *array.Int64:
			for i := range out {
				out[i].ints[j] = a.Value(i)
			}
		case *array.Timestamp:
			for i := range out {
				out[i].ints[j] = int64(a.Value(i))
			}
		case *array.String:
			for i := range out {
				out[i].strs[j] = a.Value(i)
			}
		default:
			t.Fatalf("unexpected array %T", col)
		}
	}
	return out
}

// nexWithText makes nexRowsOf render rows, for the tests that compare
// them; the package's tests do not run in parallel.
var nexWithText = false

// readNexSplits reads the given splits of src in order.
func readNexSplits(src exec.Source, splits []exec.Split, batch int) ([]arrow.RecordBatch, error) {
	var recs []arrow.RecordBatch
	for _, sp := range splits {
		r, err := src.Open(sp, exec.Offset{}, exec.ReadOptions{BatchSize: batch, Alloc: memory.DefaultAllocator})
		if err != nil {
			return recs, err
		}
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return recs, err
			}
			recs = append(recs, rec)
		}
		r.Close()
	}
	return recs, nil
}

// readNex reads every split of tab as parallelism subtasks would (subtask i
// reads splits i, i+P, ...; concurrently) and, for nexTable's 1 ms per
// event, merges the rows by event number: dateTime - base-time.
func readNex(t testing.TB, tab Table, parallelism, batch int) []nexRow {
	t.Helper()
	src := must(NewSource(tab))
	splits := must(src.Splits())
	parts := make([][]arrow.RecordBatch, parallelism)
	errs := make([]error, parallelism)
	var wg sync.WaitGroup
	for p := 0; p < parallelism; p++ {
		var mine []exec.Split
		for i := p; i < len(splits); i += parallelism {
			mine = append(mine, splits[i])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[p], errs[p] = readNexSplits(src, mine, batch)
		}()
	}
	wg.Wait()
	var rows []nexRow
	for p, recs := range parts {
		if errs[p] != nil {
			t.Fatal(errs[p])
		}
		for _, rec := range recs {
			rows = append(rows, nexRowsOf(t, src.Schema(), rec)...)
			rec.Release()
		}
	}
	if tab.Options["first-event.rate"] == "1000" && src.Schema().Index("dateTime") >= 0 {
		for i := range rows {
			rows[i].n = rows[i].int("dateTime") - nexBase
		}
		slices.SortFunc(rows, func(a, b nexRow) int { return int(a.n - b.n) })
	}
	return rows
}

func TestNexmarkKinds(t *testing.T) {
	c := must(parseNexmark(nexTable("bid")))
	var got strings.Builder
	for n := int64(0); n < 50; n++ {
		got.WriteByte("PAB"[c.kindOf(n)])
	}
	if want := "PAAA" + strings.Repeat("B", 46); got.String() != want {
		t.Fatalf("kinds of events 0..49: %s, want %s", got.String(), want)
	}
	// Over 1e5 events the three tables hold exactly 2%, 6% and 92%, each
	// event number once, of the right kind.
	seen := make([]bool, 100_000)
	for kind, want := range map[string]int{"person": 2000, "auction": 6000, "bid": 92000} {
		rows := readNex(t, nexTable(kind), 3, 1000)
		if len(rows) != want {
			t.Errorf("%s: %d rows, want %d", kind, len(rows), want)
		}
		for _, r := range rows {
			if r.n < 0 || r.n >= 100_000 || seen[r.n] {
				t.Fatalf("%s: event %d out of range or seen twice", kind, r.n)
			}
			seen[r.n] = true
			if k := nexKindNames[c.kindOf(r.n)]; k != kind {
				t.Fatalf("event %d is a %s in the %s table", r.n, k, kind)
			}
		}
	}
	for n, ok := range seen {
		if !ok {
			t.Fatalf("event %d missing", n)
		}
	}
	// Other proportions: 2 persons, 5 auctions, 13 bids per epoch of 20.
	for kind, want := range map[string]int{"person": 10_000, "auction": 25_000, "bid": 65_000} {
		rows := readNex(t, nexTable(kind, "person.proportion", "2", "auction.proportion", "5", "bid.proportion", "13"), 2, 4096)
		if len(rows) != want {
			t.Errorf("%s with proportions 2:5:13: %d rows, want %d", kind, len(rows), want)
		}
	}
}

// nexEpoch returns the epoch and offset of event n for total proportion tp.
func nexEpoch(n, tp int64) (int64, int64) { return n / tp, n % tp }

func TestNexmarkIDs(t *testing.T) {
	for _, prop := range [][3]int64{{1, 3, 46}, {2, 5, 13}} {
		pp, ap, tp := prop[0], prop[1], prop[0]+prop[1]+prop[2]
		kv := []string{"person.proportion", fmt.Sprint(prop[0]), "auction.proportion", fmt.Sprint(prop[1]), "bid.proportion", fmt.Sprint(prop[2])}
		persons := readNex(t, nexTable("person", kv...), 4, 333)
		auctions := readNex(t, nexTable("auction", kv...), 4, 333)
		bids := readNex(t, nexTable("bid", kv...), 4, 333)
		for i, r := range persons {
			e, o := nexEpoch(r.n, tp)
			if id := r.int("id"); id != e*pp+o+1000 || id != int64(i)+1000 {
				t.Fatalf("%v: person %d (event %d) has id %d", prop, i, r.n, id)
			}
		}
		for i, r := range auctions {
			e, o := nexEpoch(r.n, tp)
			if id := r.int("id"); id != e*ap+o-pp+1000 || id != int64(i)+1000 {
				t.Fatalf("%v: auction %d (event %d) has id %d", prop, i, r.n, id)
			}
			if c := r.int("category"); c < 10 || c > 14 {
				t.Fatalf("category %d", c)
			}
			if r.int("reserve") <= r.int("initialBid") || r.int("expires") <= r.int("dateTime") {
				t.Fatalf("auction %s: reserve not above the initial bid or expiry not after its time", r.text)
			}
		}

		// Walk the events in order: referenced ids never exceed the last
		// id made so far by more than the lead of 10, nor lag it by more
		// than the window (1000 people, 100 auctions), unless hot.
		var all []nexRow
		all = append(append(append(all, persons...), auctions...), bids...)
		slices.SortFunc(all, func(a, b nexRow) int { return int(a.n - b.n) })
		lastP, lastA := int64(-1), int64(-1)
		var hotA, hotB, hotS, nBids, nAuctions int
		cats := map[int64]int{}
		checkPerson := func(what string, id int64, hotOffset int64) bool {
			if id > lastP+10 || id < lastP-1000+1 || id < 1000 {
				t.Fatalf("%v: %s %d when the last person is %d", prop, what, id, lastP)
			}
			return id == (lastP-1000)/100*100+1000+hotOffset
		}
		cfg := must(parseNexmark(nexTable("bid", kv...)))
		for _, r := range all {
			switch nexKindNames[cfg.kindOf(r.n)] {
			case "person":
				lastP = r.int("id")
			case "auction":
				lastA = r.int("id")
				nAuctions++
				cats[r.int("category")]++
				if checkPerson("seller", r.int("seller"), 0) {
					hotS++
				}
			case "bid":
				nBids++
				a := r.int("auction")
				if a > lastA+10 || a < 1000 {
					t.Fatalf("%v: bid for auction %d when the last auction is %d", prop, a, lastA)
				}
				if a == (lastA-1000)/100*100+1000 {
					hotA++
				} else if a < lastA-100 {
					t.Fatalf("%v: bid for auction %d, neither hot nor among the last 100 (last %d)", prop, a, lastA)
				}
				if checkPerson("bidder", r.int("bidder"), 1) {
					hotB++
				}
			}
		}
		// Hot shares: 1/2 of bids for the hot auction, 3/4 by hot bidders,
		// 3/4 of auctions by hot sellers (plus the few uniform draws that
		// hit the hot id).
		for _, s := range []struct {
			what      string
			got, of   int
			want, tol float64
		}{{"hot auctions", hotA, nBids, 0.5, 0.03}, {"hot bidders", hotB, nBids, 0.75, 0.03}, {"hot sellers", hotS, nAuctions, 0.75, 0.05}} {
			if f := float64(s.got) / float64(s.of); math.Abs(f-s.want) > s.tol {
				t.Errorf("%v: %s %.3f, want %.2f", prop, s.what, f, s.want)
			}
		}
		if len(cats) != 5 {
			t.Errorf("categories %v", cats)
		}
	}
}

func TestNexmarkTimestamps(t *testing.T) {
	// Event n is at base + floor(n·1000/rate) ms; with one split the bid
	// table's rows are the bid events in order, so n is known.
	for _, rate := range []string{"10000", "3", "7777"} {
		tab := nexTable("bid", "first-event.rate", rate, "splits", "1", "events.num", "20000", "base-time", "2023-06-01 12:00:00")
		base, _ := types.ParseTimestamp("2023-06-01 12:00:00")
		rows := readNex(t, tab, 1, 1000)
		r64, _ := strconv.ParseInt(rate, 10, 64)
		for i, r := range rows {
			n := int64(i)/46*50 + 4 + int64(i)%46
			if want := base + n*1000/r64; r.int("dateTime") != want {
				t.Fatalf("rate %s: bid %d (event %d) at %d, want %d", rate, i, n, r.int("dateTime"), want)
			}
		}
		if len(rows) != 18400 {
			t.Fatalf("%d bids", len(rows))
		}
	}
	// Auctions expire 1 ms to twice the time of 100 auctions' worth of
	// events (1666 events: 166 ms at 10000 events per second) after they
	// start.
	rows := readNex(t, nexTable("auction", "first-event.rate", "10000"), 2, 1000)
	var sum float64
	for _, r := range rows {
		d := r.int("expires") - r.int("dateTime")
		if d < 1 || d > 2*167+1 {
			t.Fatalf("auction lasts %d ms", d)
		}
		sum += float64(d)
	}
	if avg := sum / float64(len(rows)); math.Abs(avg-167) > 5 {
		t.Errorf("auctions last %.1f ms on average, want about 167", avg)
	}
}

func nexTexts(rows []nexRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.text
	}
	return out
}

func TestNexmarkDeterministic(t *testing.T) {
	nexWithText = true
	defer func() { nexWithText = false }()
	for _, kind := range []string{"bid", "auction", "person"} {
		kv := []string{"events.num", "30000"}
		one := nexTexts(readNex(t, nexTable(kind, kv...), 1, 4096))
		four := nexTexts(readNex(t, nexTable(kind, kv...), 4, 7))
		if !slices.Equal(one, four) {
			t.Errorf("%s: parallelism 1 and 4 differ", kind)
		}
		s1 := nexTexts(readNex(t, nexTable(kind, append(kv, "splits", "1")...), 1, 1000))
		s8 := nexTexts(readNex(t, nexTable(kind, append(kv, "splits", "8")...), 3, 1000))
		if !slices.Equal(s1, s8) || !slices.Equal(s1, one) {
			t.Errorf("%s: splits 1 and 8 differ", kind)
		}
		other := nexTexts(readNex(t, nexTable(kind, append(kv, "seed", "1")...), 2, 1000))
		same := 0
		for i := range other {
			if other[i] == one[i] {
				same++
			}
		}
		if len(other) != len(one) || same > 0 {
			t.Errorf("%s: seeds 0 and 1 give %d identical rows of %d", kind, same, len(one))
		}
	}
}

func TestNexmarkResume(t *testing.T) {
	nexWithText = true
	defer func() { nexWithText = false }()
	tab := nexTable("bid", "events.num", "50000")
	src := must(NewSource(tab))
	sp := must(src.Splits())[3]
	ro := exec.ReadOptions{BatchSize: 100}
	var whole []string
	for _, rec := range must(readNexSplits(src, []exec.Split{sp}, 100)) {
		whole = append(whole, nexTexts(nexRowsOf(t, src.Schema(), rec))...)
		rec.Release()
	}

	r := must(src.Open(sp, exec.Offset{}, ro))
	var got []string
	for i := 0; i < 7; i++ {
		rec := must(r.Next())
		got = append(got, nexTexts(nexRowsOf(t, src.Schema(), rec))...)
		rec.Release()
	}
	off := r.Offset()
	r.Close()
	if off.Line != 700 {
		t.Fatalf("offset %+v after 700 rows", off)
	}
	r = must(src.Open(sp, off, exec.ReadOptions{BatchSize: 333}))
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		got = append(got, nexTexts(nexRowsOf(t, src.Schema(), rec))...)
		rec.Release()
	}
	if end := r.Offset(); end.Line != int64(len(whole)) || end.Pos < 50000 {
		t.Errorf("final offset %+v, want %d rows", end, len(whole))
	}
	if !slices.Equal(got, whole) {
		t.Fatalf("resumed read differs from a whole read (%d vs %d rows)", len(got), len(whole))
	}

	// Any position: the split's first bid at or after it.
	for _, pos := range []int64{0, 1, 149, 150, 153, 154, 199, 12345} {
		r := must(src.Open(sp, exec.Offset{Pos: pos}, exec.ReadOptions{BatchSize: 1}))
		row := nexRowsOf(t, src.Schema(), must(r.Next()))[0]
		n := row.int("dateTime") - nexBase
		want := pos
		for want/50%8 != 3 || want%50 < 4 {
			want++
		}
		if n != want {
			t.Errorf("open at %d: first event %d, want %d", pos, n, want)
		}
	}
}

func TestNexmarkPrices(t *testing.T) {
	rows := readNex(t, nexTable("bid", "events.num", "108696"), 2, 4096) // 1e5 bids
	if len(rows) < 100_000 {
		t.Fatalf("%d bids", len(rows))
	}
	var bands [3]int
	for _, r := range rows {
		p := r.int("price")
		switch {
		case p < 100 || p > 100_000_000:
			t.Fatalf("price %d", p)
		case p < 10_000:
			bands[0]++
		case p < 1_000_000:
			bands[1]++
		default:
			bands[2]++
		}
	}
	for i, b := range bands {
		if f := float64(b) / float64(len(rows)); math.Abs(f-1.0/3) > 0.03 {
			t.Errorf("price band %d holds %.3f of bids", i, f)
		}
	}
}

var nexURL = regexp.MustCompile(`^https://www\.nexmark\.com/[a-z_]{3,4}/[a-z_]{3,4}/[a-z_]{3,4}/item\.htm\?query=1(&channel_id=(-?\d+))?$`)

func TestNexmarkChannels(t *testing.T) {
	rows := readNex(t, nexTable("bid"), 2, 4096)
	hotURL := map[string]string{}
	chanURL := map[string]string{}
	var hot, withID int
	for _, r := range rows {
		ch, url := r.str("channel"), r.str("url")
		m := nexURL.FindStringSubmatch(url)
		if m == nil {
			t.Fatalf("url %q", url)
		}
		if slices.Contains(nexHotChannels, ch) {
			hot++
			if m[1] != "" {
				t.Fatalf("hot channel %s has url %s", ch, url)
			}
			if u, ok := hotURL[ch]; ok && u != url {
				t.Fatalf("channel %s has urls %s and %s", ch, u, url)
			}
			hotURL[ch] = url
			continue
		}
		i, err := strconv.Atoi(strings.TrimPrefix(ch, "channel-"))
		if err != nil || i < 0 || i >= 10000 || ch != "channel-"+strconv.Itoa(i) {
			t.Fatalf("channel %q", ch)
		}
		if u, ok := chanURL[ch]; ok && u != url {
			t.Fatalf("channel %s has urls %s and %s", ch, u, url)
		}
		chanURL[ch] = url
		if m[1] != "" {
			withID++
			// Math.abs(Integer.reverse(i))
			want := int64(int32(bits.Reverse32(uint32(i))))
			if want < 0 && want != math.MinInt32 {
				want = -want
			}
			if m[2] != strconv.FormatInt(want, 10) {
				t.Fatalf("channel %d has channel_id %s, want %d", i, m[2], want)
			}
		}
	}
	if f := float64(hot) / float64(len(rows)); math.Abs(f-0.5) > 0.01 {
		t.Errorf("%.3f of bids on hot channels", f)
	}
	if len(hotURL) != 4 {
		t.Errorf("hot channels %v", hotURL)
	}
	if f := float64(withID) / float64(len(rows)-hot); math.Abs(f-0.9) > 0.02 {
		t.Errorf("%.3f of other channels' urls have a channel_id", f)
	}
	if len(chanURL) < 9000 {
		t.Errorf("only %d distinct channels", len(chanURL))
	}
}

// nexSize is an event's size as Flink's generator counts it: 8 bytes per
// number and timestamp (the dateTime not counted) and the strings' bytes.
func nexSize(kind string, r nexRow) int {
	switch kind {
	case "person":
		return 8 + len(r.str("name")) + len(r.str("emailAddress")) + len(r.str("creditCard")) + len(r.str("city")) + len(r.str("state")) + len(r.str("extra"))
	case "auction":
		return 8 + len(r.str("itemName")) + len(r.str("description")) + 5*8 + len(r.str("extra"))
	}
	return 4*8 + len(r.str("extra"))
}

func TestNexmarkExtra(t *testing.T) {
	for _, c := range []struct {
		kind string
		avg  int
		kv   []string
	}{{"person", 200, nil}, {"auction", 500, nil}, {"bid", 100, nil}, {"bid", 1024, []string{"bid.avg-size", "1kb", "events.num", "20000"}}, {"person", 20, []string{"person.avg-size", "20b"}}} {
		rows := readNex(t, nexTable(c.kind, c.kv...), 2, 4096)
		var sum float64
		for _, r := range rows {
			size := nexSize(c.kind, r)
			if c.avg < 50 {
				// Smaller than the fields: no extra at all.
				if r.str("extra") != "" {
					t.Fatalf("extra %q", r.str("extra"))
				}
				continue
			}
			if size < c.avg*8/10 || size > c.avg*12/10 {
				t.Fatalf("%s of %d bytes, want %d ± 20%%: %s", c.kind, size, c.avg, r)
			}
			if strings.Trim(r.str("extra"), "abcdefghijklmnopqrstuvwxyz") != "" {
				t.Fatalf("extra %q", r.str("extra"))
			}
			sum += float64(size)
		}
		if avg := sum / float64(len(rows)); c.avg >= 50 && math.Abs(avg-float64(c.avg)) > 0.01*float64(c.avg)+1 {
			t.Errorf("%s: average size %.1f, want %d", c.kind, avg, c.avg)
		}
	}
}

var (
	nexEmail = regexp.MustCompile(`^([a-z]([a-z ]*[a-z])?)?@([a-z]([a-z ]*[a-z])?)?\.com$`)
	nexCard  = regexp.MustCompile(`^\d{4} \d{4} \d{4} \d{4}$`)
)

func TestNexmarkPersonAuctionStrings(t *testing.T) {
	for _, r := range readNex(t, nexTable("person"), 1, 4096) {
		first, last, ok := strings.Cut(r.str("name"), " ")
		if !ok || !slices.Contains(nexFirstNames, first) || !slices.Contains(nexLastNames, last) {
			t.Fatalf("name %q", r.str("name"))
		}
		if !nexEmail.MatchString(r.str("emailAddress")) || len(r.str("emailAddress")) > 15 {
			t.Fatalf("email %q", r.str("emailAddress"))
		}
		if !nexCard.MatchString(r.str("creditCard")) {
			t.Fatalf("credit card %q", r.str("creditCard"))
		}
		if !slices.Contains(nexCities, r.str("city")) || !slices.Contains(nexStates, r.str("state")) {
			t.Fatalf("city %q, state %q", r.str("city"), r.str("state"))
		}
	}
	for _, r := range readNex(t, nexTable("auction"), 1, 4096) {
		for col, max := range map[string]int{"itemName": 19, "description": 99} {
			s := r.str(col)
			if len(s) > max || strings.TrimSpace(s) != s || strings.Trim(s, " abcdefghijklmnopqrstuvwxyz") != "" {
				t.Fatalf("%s %q", col, s)
			}
		}
	}
}

func TestNexmarkColumns(t *testing.T) {
	// A subset of the columns, in another order and case, makes the same
	// values as the full table.
	full := readNex(t, nexTable("bid", "events.num", "5000"), 1, 4096)
	sub := nexTable("bid", "events.num", "5000")
	sub.Schema = types.Schema{{Name: "DATETIME", Type: types.TTimestampLTZ}, {Name: "Price", Type: types.TBigInt.WithNotNull(true)}, {Name: "url", Type: types.Type{Kind: types.String, Precision: 200}}}
	rows := readNex(t, sub, 2, 100)
	if len(rows) != len(full) {
		t.Fatalf("%d rows, want %d", len(rows), len(full))
	}
	for i, r := range rows {
		if r.int("price") != full[i].int("price") || r.str("url") != full[i].str("url") || r.int("dateTime") != full[i].int("dateTime") {
			t.Fatalf("row %d: %s vs %s", i, r, full[i])
		}
	}
	// No columns at all: still one row per event.
	empty := nexTable("person", "events.num", "500")
	empty.Schema = nil
	src := must(NewSource(empty))
	n := 0
	for _, sp := range must(src.Splits()) {
		r := must(src.Open(sp, exec.Offset{}, exec.ReadOptions{BatchSize: 3}))
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			n += int(rec.NumRows())
			rec.Release()
		}
	}
	if n != 10 {
		t.Errorf("%d persons in 500 events", n)
	}
}

func TestNexmarkOptions(t *testing.T) {
	bad := func(name string, tab Table, key, msg string) {
		t.Helper()
		err := Validate(tab, true)
		var oe *OptionError
		if !errors.As(err, &oe) || !errors.Is(err, ErrOption) || oe.Key != key || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: got %v, want an error on %q containing %q", name, err, key, msg)
		}
		if _, err := NewSource(tab); err == nil {
			t.Errorf("%s: NewSource accepted it", name)
		}
	}
	noType := nexTable("bid")
	delete(noType.Options, "event-type")
	bad("missing event-type", noType, "event-type", "missing required option 'event-type' for connector 'nexmark'")
	bad("bad event-type", nexTable("bids"), "event-type", "invalid value 'bids' for option 'event-type' (valid values: 'bid', 'auction', 'person')")
	bad("unknown option", nexTable("bid", "rows-per-second", "5"), "rows-per-second", "unknown option 'rows-per-second' for connector 'nexmark'")
	bad("splits", nexTable("bid", "splits", "0"), "splits", "must be an integer between 1 and 65536")
	bad("rate", nexTable("bid", "first-event.rate", "0"), "first-event.rate", "")
	bad("events", nexTable("bid", "events.num", "-1"), "events.num", "")
	bad("proportion", nexTable("bid", "person.proportion", "0"), "person.proportion", "")
	bad("hot ratio", nexTable("bid", "bid.hot-ratio.bidders", "x"), "bid.hot-ratio.bidders", "")
	bad("avg size", nexTable("bid", "bid.avg-size", "2 parsecs"), "bid.avg-size", "memory size")
	bad("base time", nexTable("bid", "base-time", "yesterday"), "base-time", "must be a timestamp")
	unknown := nexTable("bid")
	unknown.Schema = types.Schema{{Name: "price", Type: types.TBigInt}, {Name: "seller", Type: types.TBigInt}}
	bad("unknown column", unknown, "event-type", "column 'seller' of table bid is not a field of nexmark bid events (valid columns: 'auction', 'bidder', 'price', 'channel', 'url', 'dateTime', 'extra')")
	wrong := nexTable("auction")
	wrong.Schema = types.Schema{{Name: "initialBid", Type: types.TDouble}}
	bad("wrong type", wrong, "event-type", "column 'initialBid' of nexmark auction table auction must be BIGINT, not DOUBLE")
	sink := nexTable("bid")
	if err := Validate(sink, false); err == nil || !strings.Contains(err.Error(), "can only be used as a source") {
		t.Errorf("as a sink: %v", err)
	}
	for _, ok := range []Table{
		nexTable("PERSON", "seed", "-5", "splits", "65536", "events.num", "0", "base-time", "2020-02-29T10:00:00Z",
			"person.avg-size", "1 kb", "auction.hot-ratio.sellers", "1", "bid.hot-ratio.auctions", "1000000"),
	} {
		if err := Validate(ok, true); err != nil {
			t.Errorf("valid table refused: %v", err)
		}
	}
	src := must(NewSource(nexTable("bid", "events.num", "0")))
	if src.Bounded() {
		t.Error("events.num 0 is bounded")
	}
	if !must(NewSource(nexTable("bid"))).Bounded() {
		t.Error("events.num 100000 is unbounded")
	}
}

// BenchmarkNexmarkBids generates the bid table (all 7 columns) in batches
// of 4096, as exec.Run reads sources by default, and reports events (bids)
// per second of wall time and per CPU-second of the process (GC included).
func BenchmarkNexmarkBids(b *testing.B) {
	src := must(NewSource(Table{Name: "bid", Schema: nexBidSchema, Options: map[string]string{"connector": "nexmark", "event-type": "bid"}}))
	r := must(src.Open(exec.Split{}, exec.Offset{}, exec.ReadOptions{BatchSize: 4096}))
	b.ReportAllocs()
	cpu0 := nexCPU()
	start := time.Now()
	rows := 0
	for range b.N {
		rec := must(r.Next())
		rows += int(rec.NumRows())
		rec.Release()
	}
	wall, cpu := time.Since(start).Seconds(), nexCPU()-cpu0
	b.ReportMetric(float64(rows)/wall, "events/s")
	b.ReportMetric(float64(rows)/cpu, "events/cpu-s")
}

// nexCPU is the process's user+system CPU time in seconds.
func nexCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkNexmarkBidsReused is BenchmarkNexmarkBids with a run's
// allocator (exec.NewPoolAlloc), which reuses released buffers: the
// generator's own cost, without the Go allocator's zeroing, page faults
// and garbage collection.
func BenchmarkNexmarkBidsReused(b *testing.B) {
	src := must(NewSource(Table{Name: "bid", Schema: nexBidSchema, Options: map[string]string{"connector": "nexmark", "event-type": "bid"}}))
	r := must(src.Open(exec.Split{}, exec.Offset{}, exec.ReadOptions{BatchSize: 4096, Alloc: exec.NewPoolAlloc()}))
	b.ReportAllocs()
	cpu0 := nexCPU()
	start := time.Now()
	rows := 0
	for range b.N {
		rec := must(r.Next())
		rows += int(rec.NumRows())
		rec.Release()
	}
	wall, cpu := time.Since(start).Seconds(), nexCPU()-cpu0
	b.ReportMetric(float64(rows)/wall, "events/s")
	b.ReportMetric(float64(rows)/cpu, "events/cpu-s")
}

// TestNexmarkPriceFormula checks the table-and-series price against
// Flink's Math.round(Math.pow(10, u*6) * 100).
func TestNexmarkPriceFormula(t *testing.T) {
	if p := nexPrice(0); p != 100 {
		t.Errorf("price of u = 0: %d", p)
	}
	if p := nexPrice(math.MaxUint64); p != 100_000_000 {
		t.Errorf("price of u → 1: %d", p)
	}
	// Equal to Math.pow's rounding for all of these (a difference of one
	// could only come from a value within 1e-15 of a half).
	for k := uint64(0); k < 200_000; k++ {
		r := mix(k)
		want := int64(math.Floor(math.Pow(10, unit(r)*6)*100 + 0.5))
		if got := nexPrice(r); got != want {
			t.Fatalf("price of u = %v: %d, want %d", unit(r), got, want)
		}
	}
}
