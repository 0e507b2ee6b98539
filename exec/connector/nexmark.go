package connector

import (
	"fmt"
	"io"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

// The Nexmark generator ('connector' = 'nexmark') makes the person, auction
// and bid events of the Nexmark benchmark as Flink's nexmark repository
// does, except that every value is a pure function of (seed, event number,
// field): see "Nexmark" in doc.go for the rules.

// nexKind is an event type.
type nexKind uint8

const (
	nexPerson nexKind = iota
	nexAuction
	nexBid
)

var nexKindNames = [...]string{nexPerson: "person", nexAuction: "auction", nexBid: "bid"}

// Nexmark's constants, as Flink's nexmark generator has them.
const (
	nexFirstPersonID   = 1000
	nexFirstAuctionID  = 1000
	nexFirstCategoryID = 10
	nexNumCategories   = 5
	nexHotGroup        = 100 // hot auctions, bidders and sellers are the first of a group of 100 ids
	nexInFlight        = 100 // a bid's auction is one of the last 100 (plus the lead)
	nexIDLead          = 10  // ids of auctions and people not yet made that may be referenced
	nexActivePeople    = 1000
	nexHotChannelRatio = 2
	nexChannels        = 10_000
	nexMinString       = 3 // nextString's shortest length before trimming
)

// nexField is one generated field (a column a table may declare).
type nexField uint8

const (
	pID nexField = iota
	pName
	pEmail
	pCard
	pCity
	pState
	pDateTime
	pExtra
	aID
	aItemName
	aDescription
	aInitialBid
	aReserve
	aDateTime
	aExpires
	aSeller
	aCategory
	aExtra
	bAuction
	bBidder
	bPrice
	bChannel
	bURL
	bDateTime
	bExtra
	nexNumFields
)

// nexType is a field's SQL type family.
type nexType uint8

const (
	nBigInt nexType = iota
	nString
	nTimestamp
)

var nexTypeNames = [...]string{nBigInt: "BIGINT", nString: "VARCHAR", nTimestamp: "TIMESTAMP(3)"}

// nexFields lists the fields with Flink's column names, in Flink's DDL
// order per event type.
var nexFields = [nexNumFields]struct {
	kind nexKind
	name string
	t    nexType
}{
	pID:          {nexPerson, "id", nBigInt},
	pName:        {nexPerson, "name", nString},
	pEmail:       {nexPerson, "emailAddress", nString},
	pCard:        {nexPerson, "creditCard", nString},
	pCity:        {nexPerson, "city", nString},
	pState:       {nexPerson, "state", nString},
	pDateTime:    {nexPerson, "dateTime", nTimestamp},
	pExtra:       {nexPerson, "extra", nString},
	aID:          {nexAuction, "id", nBigInt},
	aItemName:    {nexAuction, "itemName", nString},
	aDescription: {nexAuction, "description", nString},
	aInitialBid:  {nexAuction, "initialBid", nBigInt},
	aReserve:     {nexAuction, "reserve", nBigInt},
	aDateTime:    {nexAuction, "dateTime", nTimestamp},
	aExpires:     {nexAuction, "expires", nTimestamp},
	aSeller:      {nexAuction, "seller", nBigInt},
	aCategory:    {nexAuction, "category", nBigInt},
	aExtra:       {nexAuction, "extra", nString},
	bAuction:     {nexBid, "auction", nBigInt},
	bBidder:      {nexBid, "bidder", nBigInt},
	bPrice:       {nexBid, "price", nBigInt},
	bChannel:     {nexBid, "channel", nString},
	bURL:         {nexBid, "url", nString},
	bDateTime:    {nexBid, "dateTime", nTimestamp},
	bExtra:       {nexBid, "extra", nString},
}

// nexColumns returns the column names of an event type.
func nexColumns(k nexKind) []string {
	var out []string
	for _, f := range nexFields {
		if f.kind == k {
			out = append(out, f.name)
		}
	}
	return out
}

// nexConfig is a nexmark table's options.
type nexConfig struct {
	kind       nexKind
	seed       uint64
	splits     int64
	total      int64 // events.num; 0 is unbounded
	rate       int64 // first-event.rate, events per second of event time
	eps        int64 // events-per-second, a throttle of wall-clock time; 0 is none
	base       int64 // base-time, ms
	pp, ap, bp int64 // proportions of persons, auctions, bids
	tp         int64 // their sum: the events of one epoch
	hotAuction int64 // bid.hot-ratio.auctions
	hotBidder  int64 // bid.hot-ratio.bidders
	hotSeller  int64 // auction.hot-ratio.sellers
	avgPerson  int64 // average event sizes, bytes
	avgAuction int64
	avgBid     int64
	fields     []nexField // the field of each column of the table
	// flink is set for a table of Flink's shape (no event-type; see
	// nexmark_flink.go): cols describes its columns, and fields is nil.
	flink   bool
	cols    []flinkCol
	only    nexKind // with onlySet: the query reads only events of this kind
	onlySet bool
}

var nexKeys = []string{"connector", "event-type", "seed", "splits", "events.num", "first-event.rate", "base-time", "events-per-second",
	"person.proportion", "auction.proportion", "bid.proportion",
	"bid.hot-ratio.auctions", "bid.hot-ratio.bidders", "auction.hot-ratio.sellers",
	"person.avg-size", "auction.avg-size", "bid.avg-size",
	"next-event.rate", "rate.shape", "rate.period", "rate.limited", "keep-alive", "stop-at", "max-emit-speed",
	"extended-bid-mode", "simulation-mode"}

func parseNexmark(t Table) (nexConfig, error) {
	o := &opts{conn: "nexmark", m: t.Options}
	var c nexConfig
	if err := o.checkKeys(slices.Concat(nexKeys, alignKeys), nil); err != nil {
		return c, err
	}
	et, flink := "", false
	var err error
	if _, ok := o.get("event-type"); !ok && flinkShaped(t.Schema) {
		flink = true // Flink's shape: event_type and a ROW per kind
	} else if _, err = o.required("event-type"); err != nil {
		return c, err
	} else if et, err = o.choice("event-type", "", "bid", "auction", "person"); err != nil {
		return c, err
	}
	switch et {
	case "person":
		c.kind = nexPerson
	case "auction":
		c.kind = nexAuction
	default:
		c.kind = nexBid
	}
	seed, err := o.integer("seed", 0, math.MinInt64, math.MaxInt64)
	if err != nil {
		return c, err
	}
	c.seed = uint64(seed)
	if c.splits, err = o.integer("splits", 8, 1, 1<<16); err != nil {
		return c, err
	}
	if c.total, err = o.integer("events.num", 0, 0, 1<<62); err != nil {
		return c, err
	}
	if c.rate, err = o.integer("first-event.rate", 10000, 1, 1_000_000_000); err != nil {
		return c, err
	}
	if c.eps, err = o.integer("events-per-second", 0, 0, 1_000_000_000); err != nil {
		return c, err
	}
	c.base = 1704067200000 // 2024-01-01 00:00:00
	if v, ok := o.get("base-time"); ok {
		if c.base, ok = parseTimestamp([]byte(strings.TrimSpace(v))); !ok {
			return c, badValue("base-time", v, "must be a timestamp such as '2024-01-01 00:00:00'")
		}
	}
	for _, p := range []struct {
		key string
		def int64
		dst *int64
	}{
		{"person.proportion", 1, &c.pp}, {"auction.proportion", 3, &c.ap}, {"bid.proportion", 46, &c.bp},
		{"bid.hot-ratio.auctions", 2, &c.hotAuction}, {"bid.hot-ratio.bidders", 4, &c.hotBidder},
		{"auction.hot-ratio.sellers", 4, &c.hotSeller},
	} {
		if *p.dst, err = o.integer(p.key, p.def, 1, 1_000_000); err != nil {
			return c, err
		}
	}
	c.tp = c.pp + c.ap + c.bp
	for _, s := range []struct {
		key string
		def int64
		dst *int64
	}{
		{"person.avg-size", 200, &c.avgPerson}, {"auction.avg-size", 500, &c.avgAuction}, {"bid.avg-size", 100, &c.avgBid},
	} {
		*s.dst = s.def
		if v, ok := o.get(s.key); ok {
			n, ok := types.ParseMemorySize(v)
			if !ok || n > 1<<20 {
				return c, badValue(s.key, v, "must be a memory size of at most 1 MiB, such as '100b' or '2kb'")
			}
			*s.dst = n
		}
	}
	if err := c.flinkOptions(o); err != nil {
		return c, err
	}
	if flink {
		return c, c.flinkColumns(t)
	}
	c.fields = make([]nexField, len(t.Schema))
	for i, col := range t.Schema {
		f, ok := nexFieldOf(c.kind, col.Name)
		if !ok {
			return c, &OptionError{Key: "event-type", Msg: fmt.Sprintf("column '%s' of table %s is not a field of nexmark %s events", col.Name, t.Name, et),
				Valid: nexColumns(c.kind), what: "columns"}
		}
		want := nexFields[f].t
		ty := col.Type
		if want == nBigInt && ty.Kind != types.BigInt || want == nString && ty.Kind != types.String || want == nTimestamp && !ty.IsTimestamp() {
			return c, &OptionError{Key: "event-type", Msg: fmt.Sprintf("column '%s' of nexmark %s table %s must be %s, not %s", col.Name, et, t.Name, nexTypeNames[want], ty.Plain().Nullable())}
		}
		c.fields[i] = f
	}
	return c, nil
}

// nexFieldOf finds the field of kind k named name, case-insensitively.
func nexFieldOf(k nexKind, name string) (nexField, bool) {
	for f, info := range nexFields {
		if info.kind == k && strings.EqualFold(info.name, name) {
			return nexField(f), true
		}
	}
	return 0, false
}

// nexGen holds what every reader of a source shares: the random keys and
// the tables made once from the seed. It is immutable once made.
type nexGen struct {
	cfg  nexConfig
	keys [nexNumFields]uint64
	// pool is random letters; an extra is a window of it, as TPC-H's
	// dbgen makes comments from a text pool.
	pool []byte
	// chans and urls are the bid channels and their URLs: the 4 hot ones,
	// then channel-0 ... channel-9999.
	chans, urls strTable
	bidExtra    extraSize // a bid's extra size does not depend on its other fields
}

// strTable is a list of strings in one byte slice.
type strTable struct {
	data []byte
	offs []int32
}

func (t *strTable) add(s []byte) {
	if len(t.offs) == 0 {
		t.offs = append(t.offs, 0)
	}
	t.data = append(t.data, s...)
	t.offs = append(t.offs, int32(len(t.data)))
}

func (t *strTable) get(i int) []byte { return t.data[t.offs[i]:t.offs[i+1]] }

func (t *strTable) maxLen() int {
	m := 0
	for i := 0; i+1 < len(t.offs); i++ {
		m = max(m, int(t.offs[i+1]-t.offs[i]))
	}
	return m
}

// extraSize is how long an extra is: min plus a draw in [0, 2·delta), so
// that the event's size is within ±20% of its average.
type extraSize struct{ min, delta int64 }

// newExtraSize follows Flink's nextExtra: the extra fills the event from
// its current size to the average, give or take 20%.
func newExtraSize(current, avg int64) extraSize {
	if current > avg {
		return extraSize{}
	}
	d := avg - current
	delta := (2*d + 5) / 10 // Math.round(d * 0.2): d/5 is never halfway
	return extraSize{min: d - delta, delta: delta}
}

// draw returns the length of an extra, consuming part of r.
func (s extraSize) draw(r *uint64) int64 {
	if s.delta == 0 {
		return s.min
	}
	return s.min + int64(draw(r, uint64(2*s.delta)))
}

// maxExtra bounds an extra's length for an average event size.
func maxExtra(avg int64) int { return int(avg + (2*avg+5)/10) }

const nexPoolSpan = 1 << 16

func newNexGen(c nexConfig) *nexGen {
	g := &nexGen{cfg: c}
	for f, info := range nexFields {
		g.keys[f] = mix(c.seed ^ mix(nameHash(nexKindNames[info.kind]+"."+info.name)))
	}
	need := func(fs ...nexField) bool {
		for _, f := range c.allFields() {
			for _, x := range fs {
				if f == x {
					return true
				}
			}
		}
		return false
	}
	if need(pExtra, aExtra, bExtra) {
		avg := max(c.avgPerson, c.avgAuction, c.avgBid)
		g.pool = make([]byte, nexPoolSpan+maxExtra(avg))
		w, left := uint64(0), 0
		s := mix(c.seed ^ 0x243f6a8885a308d3)
		for i := range g.pool {
			if left == 0 {
				w, left = mix(s+uint64(i)*0x9e3779b97f4a7c15), 12
			}
			g.pool[i] = byte('a' + draw(&w, 26))
			left--
		}
	}
	g.bidExtra = newExtraSize(8+8+8+8, c.avgBid)
	if need(bChannel, bURL) {
		g.makeChannels()
	}
	return g
}

// rnd is field f's random word for event n: splitmix64 of the field's key
// (from the seed and the field's name) plus n, as datagen's columns do.
func (g *nexGen) rnd(f nexField, n int64) uint64 {
	return mix(g.keys[f] + uint64(n)*0x9e3779b97f4a7c15)
}

// draw returns a uniform value in [0, k) from the high bits of r·k and
// leaves the low bits in r for the next draw (Lemire's multiply-shift
// reduction, chained), so that one random word makes several small
// choices.
func draw(r *uint64, k uint64) uint64 {
	hi, lo := bits.Mul64(*r, k)
	*r = lo
	return hi
}

// nexPrice is Flink's price, round(10^(6u)·100) for u uniform in [0, 1):
// log-uniform over 100..1e8. 10^(6u) is 2^y, y = 6u·log2(10), computed as
// 2^int(y) times a table entry 2^(j/256) times a short Taylor series for
// the rest, each operation rounded on its own (float64 conversions forbid
// fused multiply-adds), so that prices are the same on every platform; it
// is also some ten times faster than math.Pow.
func nexPrice(r uint64) int64 {
	y := float64(unit(r) * nexLog2Pow6)
	i := int(y)
	f := y - float64(i)
	j := int(f * 256)
	x := float64(float64(f-float64(j)*(1.0/256)) * math.Ln2)
	p := float64(x * (1.0 / 24))
	p = float64(x * float64(p+1.0/6))
	p = float64(x * float64(p+0.5))
	p = float64(x * float64(p+1))
	v := float64(nexExp2Table[j] * float64(p+1))
	v = float64(v * float64(int64(100)<<i))
	return int64(v + 0.5)
}

// nexLog2Pow6 is 6·log2(10): 10^(6u) = 2^(u·nexLog2Pow6).
const nexLog2Pow6 = 19.931568569324174087221916576937

// nexExp2Table holds 2^(j/256), correctly rounded (computed with math/big,
// so the same everywhere).
var nexExp2Table = func() (t [256]float64) {
	const prec = 256
	root := new(big.Float).SetPrec(prec).SetInt64(2)
	for i := 0; i < 8; i++ {
		root.Sqrt(root)
	}
	v := new(big.Float).SetPrec(prec).SetInt64(1)
	for j := range t {
		t[j], _ = v.Float64()
		v.Mul(v, root)
	}
	return t
}()

// nextString is Flink's nextString: 3 to maxLen-1 characters, each the
// special character with probability 1/13 and a random letter otherwise,
// trimmed of spaces; appended to dst.
func nextString(dst []byte, r uint64, maxLen int, special byte) []byte {
	seq := r
	n := nexMinString + int(draw(&r, uint64(maxLen-nexMinString)))
	start := len(dst)
	var w uint64
	left := 0
	for i := 0; i < n; i++ {
		if left == 0 {
			w, left = mix(seq), 6
			seq += 0x9e3779b97f4a7c15
		}
		left--
		if draw(&w, 13) == 0 {
			dst = append(dst, special)
		} else {
			dst = append(dst, byte('a'+draw(&w, 26)))
		}
	}
	if special != ' ' {
		return dst
	}
	s := dst[start:]
	lead := 0
	for lead < len(s) && s[lead] == ' ' {
		lead++
	}
	end := len(s)
	for end > lead && s[end-1] == ' ' {
		end--
	}
	n = copy(s, s[lead:end])
	return dst[:start+n]
}

// nexTime is the event time of event n: base + floor(n·1000/rate) ms,
// computed exactly in integers.
func (c *nexConfig) nexTime(n int64) int64 {
	q, r := n/c.rate, n%c.rate
	return c.base + q*1000 + r*1000/c.rate
}

// kindOf returns event n's type: by n mod the total proportion, persons
// first, then auctions, then bids.
func (c *nexConfig) kindOf(n int64) nexKind {
	switch off := n % c.tp; {
	case off < c.pp:
		return nexPerson
	case off < c.pp+c.ap:
		return nexAuction
	}
	return nexBid
}

// span returns the offsets [lo, hi) within an epoch of kind k's events.
func (c *nexConfig) span(k nexKind) (int64, int64) {
	switch k {
	case nexPerson:
		return 0, c.pp
	case nexAuction:
		return c.pp, c.pp + c.ap
	}
	return c.pp + c.ap, c.tp
}

// lastPerson is Flink's lastBase0PersonId for an event in epoch e at
// offset o: the id of the last person made, base 0.
func (c *nexConfig) lastPerson(e, o int64) int64 {
	if o >= c.pp {
		o = c.pp - 1
	}
	return e*c.pp + o
}

// lastAuction is Flink's lastBase0AuctionId for an auction or bid event.
func (c *nexConfig) lastAuction(e, o int64) int64 {
	if o >= c.pp+c.ap {
		o = c.ap - 1
	} else {
		o -= c.pp
	}
	return e*c.ap + o
}

// nextPerson is Flink's nextBase0PersonId: one of the last 1000 people or
// one of the next 10.
func nextPerson(last int64, r *uint64) int64 {
	people := last + 1
	active := min(people, nexActivePeople)
	return people - active + int64(draw(r, uint64(active+nexIDLead)))
}

// nexEvents are the events of one batch, in order.
type nexEvents struct {
	n  []int64 // event numbers
	ep []int64 // epochs: n / total proportion
	of []int64 // offsets in the epoch: n mod total proportion
	ts []int64 // event times, ms
}

type nexSource struct {
	schema types.Schema
	arrow  *arrow.Schema
	gen    *nexGen
	maxLen []int // per column: a bound on a string value's length
}

func newNexSource(s types.Schema, c nexConfig) *nexSource {
	src := &nexSource{schema: s, arrow: s.Arrow(), gen: newNexGen(c), maxLen: make([]int, len(c.fields))}
	for i, f := range c.fields {
		src.maxLen[i] = src.gen.maxLen(f)
	}
	for _, col := range c.cols {
		for _, f := range col.fields {
			src.maxLen = append(src.maxLen, src.gen.maxLen(f))
		}
	}
	return src
}

func (s *nexSource) Schema() types.Schema { return s.schema }

func (s *nexSource) Bounded() bool { return s.gen.cfg.total > 0 }

// Splits are nexmark-0 ... nexmark-<splits-1>; split i makes the events of
// epochs i, i+splits, i+2·splits, ... (an epoch is the 50 events, by
// default, of one round of the proportions).
func (s *nexSource) Splits() ([]exec.Split, error) {
	out := make([]exec.Split, s.gen.cfg.splits)
	for i := range out {
		out[i] = exec.Split{ID: fmt.Sprintf("nexmark-%d", i), Index: i}
	}
	return out, nil
}

// Open starts split at the first of its events of the table's type whose
// number is at least off.Pos.
func (s *nexSource) Open(split exec.Split, off exec.Offset, ro exec.ReadOptions) (exec.SplitReader, error) {
	c := &s.gen.cfg
	if split.Index < 0 || int64(split.Index) >= c.splits {
		return nil, fmt.Errorf("nexmark: no split %d", split.Index)
	}
	if ro.BatchSize <= 0 {
		ro.BatchSize = 1024
	}
	if ro.Alloc == nil {
		ro.Alloc = memory.DefaultAllocator
	}
	r := &nexReader{src: s, ro: ro, split: int64(split.Index), rows: off.Line, maxRows: ro.BatchSize, t0: time.Now()}
	for _, m := range s.maxLen {
		if m > 0 {
			r.maxRows = min(r.maxRows, max(1, maxBatchBytes/m))
		}
	}
	r.lo, r.hi = c.span(c.kind)
	if c.flink {
		r.lo, r.hi = c.flinkSpan()
	}
	pos := max(off.Pos, 0)
	r.e, r.o = pos/c.tp, pos%c.tp
	switch {
	case r.e%c.splits != r.split:
		r.e += (r.split - r.e%c.splits + c.splits) % c.splits
		r.o = r.lo
	case r.o < r.lo:
		r.o = r.lo
	case r.o >= r.hi:
		r.e += c.splits
		r.o = r.lo
	}
	r.n0 = r.next()
	return r, nil
}

type nexReader struct {
	src     *nexSource
	ro      exec.ReadOptions
	split   int64
	lo, hi  int64 // the offsets of the table's events within an epoch
	e, o    int64 // epoch and offset of the next event
	rows    int64 // events this split has returned, carried in Offset.Line
	maxRows int
	ev      nexEvents
	chanIdx []int32  // the batch's bid channels, made once for channel and url
	start   []uint32 // the batch's bid extras' positions in the pool
	str     []byte   // a string column's bytes, reused from column to column
	scratch []byte
	closed  bool
	pos     []int32   // Flink's shape: the rows of the batch of one kind
	sub     nexEvents // and their events
	t0      time.Time // when Open was called, and
	n0      int64     // the number of the split's next event then: the throttle's schedule
}

func (r *nexReader) Next() (arrow.RecordBatch, error) {
	if r.closed {
		return nil, io.EOF
	}
	c := &r.src.gen.cfg
	limit := int64(math.MaxInt64)
	if c.eps > 0 {
		limit = r.due()
	}
	n := r.fill(limit)
	if n == 0 && (c.total > 0 && r.next() >= c.total || c.eps == 0) {
		return nil, io.EOF
	}
	s := r.src
	cols := make([]arrow.Array, len(s.schema))
	if s.gen.cfg.flink {
		r.flinkBatch(cols, n)
	}
	for i, f := range s.gen.cfg.fields {
		cols[i] = r.column(s.arrow.Field(i).Type, f, n)
	}
	rec := array.NewRecordBatch(s.arrow, cols, int64(n))
	for _, a := range cols {
		a.Release()
	}
	r.rows += int64(n)
	return rec, nil
}

// next is the number of the split's next event.
func (r *nexReader) next() int64 { return r.e*r.src.gen.cfg.tp + r.o }

// due returns the number of the last event the throttle lets out now,
// after sleeping at most 50 ms for the split's next one. Event n is due
// (n - n0) / events-per-second seconds after Open: a split steps through
// the numbers of the whole sequence at that rate, making only its own
// events, so that its splits together make events-per-second events of
// all kinds, and the tables of one sequence keep pace in event time. The
// throttle only spaces the calls: which events are made is unchanged.
func (r *nexReader) due() int64 {
	eps := float64(r.src.gen.cfg.eps)
	ready := func() int64 { return r.n0 + int64(time.Since(r.t0).Seconds()*eps) }
	if next := r.next(); ready() < next {
		at := r.t0.Add(time.Duration(float64(next-r.n0) / eps * float64(time.Second)))
		time.Sleep(min(time.Until(at), 50*time.Millisecond))
	}
	return ready()
}

// fill lists the split's next events, up to a batch and up to event number
// limit, and moves past them.
func (r *nexReader) fill(limit int64) int {
	c := &r.src.gen.cfg
	ev := &r.ev
	ev.n, ev.ep, ev.of, ev.ts = ev.n[:0], ev.ep[:0], ev.of[:0], ev.ts[:0]
	r.chanIdx = r.chanIdx[:0]
	e, o := r.e, r.o
	for len(ev.n) < r.maxRows {
		n := e*c.tp + o
		if c.total > 0 && n >= c.total || n > limit {
			break
		}
		ev.n = append(ev.n, n)
		ev.ep = append(ev.ep, e)
		ev.of = append(ev.of, o)
		ev.ts = append(ev.ts, c.nexTime(n))
		if o++; o == r.hi {
			o = r.lo
			e += c.splits
		}
	}
	r.e, r.o = e, o
	return len(ev.n)
}

// column makes column i (field f) of the batch's n events as an Arrow
// array. Numbers, bid channels, URLs and extras are written straight into
// the array's buffers (a first pass sizes the strings); other strings are
// made in a buffer the reader keeps and copied once into one of exactly
// their size.
func (r *nexReader) column(dt arrow.DataType, f nexField, n int) arrow.Array {
	s := r.src
	g := s.gen
	alloc := r.ro.Alloc
	var data *array.Data
	switch nexFields[f].t {
	case nString:
		ob := expr.NewBufferNoZero(alloc, (n+1)*4)
		offs := arrow.Int32Traits.CastFromBytes(ob.Bytes())
		offs[0] = 0
		var db *memory.Buffer
		switch f {
		case bExtra:
			// Pass 1: sizes and pool positions; pass 2: copy.
			r.start = r.start[:0]
			for j, n := range r.ev.n {
				w := g.rnd(bExtra, n)
				size := g.bidExtra.draw(&w)
				r.start = append(r.start, uint32(draw(&w, nexPoolSpan)))
				offs[j+1] = offs[j] + int32(size)
			}
			db = expr.NewBufferNoZero(alloc, int(offs[n]))
			buf := db.Bytes()
			for j, st := range r.start {
				copy(buf[offs[j]:offs[j+1]], g.pool[st:])
			}
		case bChannel, bURL:
			t := &g.chans
			if f == bURL {
				t = &g.urls
			}
			if len(r.chanIdx) != n {
				r.chanIdx = r.chanIdx[:0]
				for _, n := range r.ev.n {
					r.chanIdx = append(r.chanIdx, int32(g.bidChannel(n)))
				}
			}
			for j, c := range r.chanIdx {
				offs[j+1] = offs[j] + t.offs[c+1] - t.offs[c]
			}
			db = expr.NewBufferNoZero(alloc, int(offs[n]))
			buf := db.Bytes()
			for j, c := range r.chanIdx {
				copy(buf[offs[j]:offs[j+1]], t.data[t.offs[c]:])
			}
		default:
			buf := r.str[:0]
			for j, n := range r.ev.n {
				buf, r.scratch = g.str(f, n, buf, r.scratch[:0])
				offs[j+1] = int32(len(buf))
			}
			r.str = buf
			db = expr.NewBufferNoZero(alloc, len(buf))
			copy(db.Bytes(), buf)
		}
		data = array.NewData(dt, n, []*memory.Buffer{nil, ob, db}, nil, 0, 0)
		ob.Release()
		db.Release()
	default:
		vb := expr.NewBufferNoZero(alloc, n*8)
		g.ints(f, &r.ev, arrow.Int64Traits.CastFromBytes(vb.Bytes()))
		data = array.NewData(dt, n, []*memory.Buffer{nil, vb}, nil, 0, 0)
		vb.Release()
	}
	a := array.MakeFromData(data)
	data.Release()
	return a
}

// ints makes the values of an integer or timestamp field.
func (g *nexGen) ints(f nexField, ev *nexEvents, out []int64) {
	switch nexFields[f].t {
	case nTimestamp:
		if f != aExpires {
			copy(out, ev.ts)
			return
		}
	}
	switch nexFields[f].kind {
	case nexPerson:
		g.personInts(f, ev, out)
	case nexAuction:
		g.auctionInts(f, ev, out)
	default:
		g.bidInts(f, ev, out)
	}
}

// str appends string field f of event n to dst; scratch is spare room.
func (g *nexGen) str(f nexField, n int64, dst, scratch []byte) ([]byte, []byte) {
	switch nexFields[f].kind {
	case nexPerson:
		return g.personStr(f, n, dst, scratch)
	case nexAuction:
		return g.auctionStr(f, n, dst, scratch)
	}
	return g.bidStr(f, n, dst), scratch
}

// maxLen bounds the length of field f's values (0 for non-strings).
func (g *nexGen) maxLen(f nexField) int {
	c := &g.cfg
	switch f {
	case pName:
		return 16
	case pEmail:
		return 16
	case pCard:
		return 19
	case pCity:
		return 13
	case pState:
		return 2
	case pExtra:
		return maxExtra(c.avgPerson)
	case aItemName:
		return 20
	case aDescription:
		return 100
	case aExtra:
		return maxExtra(c.avgAuction)
	case bChannel:
		return g.chans.maxLen()
	case bURL:
		return g.urls.maxLen()
	case bExtra:
		return maxExtra(c.avgBid)
	}
	return 0
}

// extra appends an extra of the given size for event n of field f.
func (g *nexGen) extra(dst []byte, size int64, r *uint64) []byte {
	start := draw(r, nexPoolSpan)
	return append(dst, g.pool[start:start+uint64(size)]...)
}

func (r *nexReader) Offset() exec.Offset { return exec.Offset{Pos: r.next(), Line: r.rows} }

func (r *nexReader) Close() error { r.closed = true; return nil }
