package connector

import (
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// genConfig is a datagen table's options.
type genConfig struct {
	rate   int64 // rows per second across all splits; <= 0 is unthrottled
	total  int64 // rows in all, from number-of-rows and sequence ends; -1 if unbounded
	seed   uint64
	splits int64
	fields []genField
}

// genField says how one column's values are made. Every value is a pure
// function of (seed, column name, row number k): a counter-based generator
// (splitmix64 of a per-column key plus k) needs no state, so a reader can
// start at any row, and the split count does not change the values.
type genField struct {
	t        types.Type
	seq      bool
	key      uint64 // random stream of the values
	nullKey  uint64 // random stream deciding NULLs
	nullRate uint64 // P(NULL) scaled to 2^64; 0 is never
	lo, hi   int64  // random integers, dates, unscaled decimals: inclusive bounds
	flo, fhi float64
	length   int   // random strings
	start    int64 // sequences: the value of row 0 (ms for timestamps, days for dates)
	step     int64 // timestamps: ms between rows
	maxPast  int64 // random timestamps: lag in [0, maxPast)
}

var genKeys = []string{"connector", "rows-per-second", "number-of-rows", "seed", "splits",
	"fields.<name>.kind", "fields.<name>.min", "fields.<name>.max", "fields.<name>.length",
	"fields.<name>.start", "fields.<name>.end", "fields.<name>.step", "fields.<name>.max-past",
	"fields.<name>.null-rate"}

var genFieldOpts = []string{"kind", "min", "max", "length", "start", "end", "step", "max-past", "null-rate"}

// fieldOpt splits "fields.<name>.<opt>" (the name may contain dots).
func fieldOpt(key string) (name, opt string, ok bool) {
	rest, ok := strings.CutPrefix(key, "fields.")
	if !ok {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, '.')
	if i <= 0 {
		return "", "", false
	}
	name, opt = rest[:i], rest[i+1:]
	for _, o := range genFieldOpts {
		if o == opt {
			return name, opt, true
		}
	}
	return "", "", false
}

func parseDatagen(t Table) (genConfig, error) {
	o := &opts{conn: "datagen", m: t.Options}
	c := genConfig{total: -1}
	if err := o.checkKeys(slices.Concat(genKeys, alignKeys), func(k string) bool { _, _, ok := fieldOpt(k); return ok }); err != nil {
		return c, err
	}
	var err error
	if c.rate, err = o.integer("rows-per-second", 10000, math.MinInt64, math.MaxInt64); err != nil {
		return c, err
	}
	if c.total, err = o.integer("number-of-rows", -1, 0, math.MaxInt64); err != nil {
		return c, err
	}
	seed, err := o.integer("seed", 0, math.MinInt64, math.MaxInt64)
	if err != nil {
		return c, err
	}
	c.seed = uint64(seed)
	if c.splits, err = o.integer("splits", 1, 1, 1<<16); err != nil {
		return c, err
	}
	for k := range t.Options {
		if name, _, ok := fieldOpt(k); ok && t.Schema.Index(name) < 0 {
			return c, &OptionError{Key: k, Msg: fmt.Sprintf("option '%s' names no column of table %s", k, t.Name), Valid: t.Schema.Names(), what: "columns"}
		}
	}
	c.fields = make([]genField, len(t.Schema))
	for i, col := range t.Schema {
		f, n, err := parseGenField(t, col, c.seed)
		if err != nil {
			return c, err
		}
		c.fields[i] = f
		if n >= 0 && (c.total < 0 || n < c.total) {
			c.total = n
		}
	}
	return c, nil
}

// parseGenField reads the options of column col; n is the length of a
// bounded sequence, or -1.
func parseGenField(t Table, col types.Field, seed uint64) (f genField, n int64, err error) {
	// An option applies to this column if its name matches the column's,
	// exactly or else case-insensitively, as column references do.
	get := func(opt string) (string, string, bool) {
		for k, v := range t.Options {
			if name, o, ok := fieldOpt(k); ok && o == opt && t.Schema.Index(name) >= 0 && t.Schema[t.Schema.Index(name)].Name == col.Name {
				return k, v, true
			}
		}
		return "fields." + col.Name + "." + opt, "", false
	}
	ty := col.Type
	f.t = ty
	f.key = mix(seed ^ mix(nameHash(col.Name)))
	f.nullKey = mix(f.key ^ 0x6a09e667f3bcc909)
	n = -1

	kindKey, kind, ok := get("kind")
	if !ok {
		kind = "random"
		if ty.IsTimestamp() {
			kind = "sequence"
		}
	}
	switch kind {
	case "random":
	case "sequence":
		f.seq = true
		if ty.Kind == types.Boolean {
			return f, n, badValue(kindKey, kind, "a BOOLEAN column cannot be a sequence")
		}
	default:
		return f, n, badChoice(kindKey, kind, "random", "sequence")
	}

	// Which options apply depends on the type and kind; any other one set
	// for this column is an error rather than silently ignored.
	var applies []string
	numeric := ty.IsNumeric() || ty.IsInterval()
	switch {
	case ty.IsTimestamp():
		applies = []string{"start", "step"}
		if !f.seq {
			applies = append(applies, "max-past")
		}
	case f.seq && (numeric || ty.Kind == types.String || ty.Kind == types.Date):
		applies = []string{"start", "end"}
	case !f.seq && (numeric || ty.Kind == types.Date):
		applies = []string{"min", "max"}
	case !f.seq && ty.Kind == types.String:
		applies = []string{"length"}
	}
	for _, opt := range genFieldOpts {
		if opt == "kind" || opt == "null-rate" || containsStr(applies, opt) {
			continue
		}
		if k, _, ok := get(opt); ok {
			valid := []string{"fields." + col.Name + ".kind"}
			for _, a := range append(applies, "null-rate") {
				valid = append(valid, "fields."+col.Name+"."+a)
			}
			return f, n, &OptionError{Key: k, Msg: fmt.Sprintf("option '%s' does not apply to a %s %s column", k, kind, ty.Plain().Nullable()), Valid: valid, what: "options"}
		}
	}

	if k, v, ok := get("null-rate"); ok {
		r, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(r >= 0 && r <= 1) {
			return f, n, badValue(k, v, "must be a number between 0 and 1")
		}
		f.nullRate = uint64(r * (1 << 63) * 2)
		if r == 1 {
			f.nullRate = math.MaxUint64
		}
	}

	switch {
	case ty.IsTimestamp():
		f.start, f.step = 1704067200000, 1000 // 2024-01-01 00:00:00, 1 s
		if k, v, ok := get("start"); ok {
			if f.start, ok = parseTimestamp([]byte(strings.TrimSpace(v))); !ok {
				return f, n, badValue(k, v, "must be a timestamp such as '2024-01-01 00:00:00'")
			}
		}
		if k, v, ok := get("step"); ok {
			if f.step, ok = durationMs(v); !ok {
				return f, n, badValue(k, v, "must be a duration such as '100 ms', '1 s' or '2 min'")
			}
		}
		if k, v, ok := get("max-past"); ok {
			if f.maxPast, ok = durationMs(v); !ok {
				return f, n, badValue(k, v, "must be a duration such as '5 s'")
			}
		}
	case f.seq:
		start, end := int64(0), int64(-1)
		hasEnd := false
		st := ty // the type of start and end
		switch ty.Kind {
		case types.Date:
			start = 19723 // 2024-01-01
		case types.Decimal, types.Float, types.Double, types.String:
			st = types.TBigInt // these sequences count in whole numbers
		}
		if k, v, ok := get("start"); ok {
			if start, ok = genInt(st, v); !ok {
				return f, n, badValue(k, v, "must be "+genIntHint(st))
			}
		}
		if k, v, ok := get("end"); ok {
			if end, ok = genInt(st, v); !ok {
				return f, n, badValue(k, v, "must be "+genIntHint(st))
			}
			if end < start {
				return f, n, badValue(k, v, "must not be less than the start")
			}
			hasEnd = true
		}
		f.start = start
		if hasEnd {
			n = end - start + 1
			if n <= 0 { // the whole int64 range
				n = math.MaxInt64
			}
		}
	case ty.Kind == types.String:
		f.length = 100
		if k, v, ok := get("length"); ok {
			l, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || l < 0 || l > 1<<20 {
				return f, n, badValue(k, v, "must be an integer between 0 and 1048576")
			}
			f.length = l
		}
		if ty.Precision > 0 && f.length > ty.Precision {
			f.length = ty.Precision // VARCHAR(n)
		}
	case ty.Kind == types.Float || ty.Kind == types.Double:
		f.flo, f.fhi = 0, 1
		if k, v, ok := get("min"); ok {
			if f.flo, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil || math.IsInf(f.flo, 0) || math.IsNaN(f.flo) {
				return f, n, badValue(k, v, "must be a finite number")
			}
		}
		if k, v, ok := get("max"); ok {
			if f.fhi, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil || math.IsInf(f.fhi, 0) || math.IsNaN(f.fhi) {
				return f, n, badValue(k, v, "must be a finite number")
			}
		}
		if f.fhi < f.flo {
			k, v, _ := get("max")
			return f, n, badValue(k, v, "must not be less than the min")
		}
	case numeric || ty.Kind == types.Date:
		f.lo, f.hi = genRange(ty)
		if k, v, ok := get("min"); ok {
			if f.lo, ok = genInt(ty, v); !ok {
				return f, n, badValue(k, v, "must be "+genIntHint(ty))
			}
		}
		if k, v, ok := get("max"); ok {
			if f.hi, ok = genInt(ty, v); !ok {
				return f, n, badValue(k, v, "must be "+genIntHint(ty))
			}
		}
		if f.hi < f.lo {
			k, v, _ := get("max")
			return f, n, badValue(k, v, "must not be less than the min")
		}
	}
	return f, n, nil
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// genRange is a random column's default range: the type's for integers,
// [0, 10^(p-s)) for decimals (within int64 unscaled), 2000-01-01 to
// 2030-12-31 for dates.
func genRange(t types.Type) (int64, int64) {
	switch t.Kind {
	case types.Int, types.IntervalYearMonth:
		return math.MinInt32, math.MaxInt32
	case types.Date:
		return 10957, 22279
	case types.Decimal:
		hi := int64(1)
		for i := 0; i < min(t.Precision, 18); i++ {
			hi *= 10
		}
		return 0, hi - 1
	}
	return math.MinInt64, math.MaxInt64
}

// genInt parses an integer option of a column of type t: a date text for
// DATE (as days), a decimal text for DECIMAL (as an unscaled value for
// random bounds, whole numbers for sequences), an integer otherwise.
func genInt(t types.Type, v string) (int64, bool) {
	v = strings.TrimSpace(v)
	switch t.Kind {
	case types.Date:
		d, ok := types.ParseDate(v)
		return int64(d), ok
	case types.Decimal:
		if !decimalText([]byte(v)) {
			return 0, false
		}
		d, err := types.ParseDecimal(v, t.Precision, t.Scale)
		if err != nil || d.HighBits() != 0 && d.HighBits() != -1 || (d.HighBits() < 0) != (int64(d.LowBits()) < 0) {
			return 0, false
		}
		return int64(d.LowBits()), true
	}
	if v == "" {
		return 0, false
	}
	n, ok := parseInt([]byte(v))
	if ok && (t.Kind == types.Int || t.Kind == types.IntervalYearMonth) && (n < math.MinInt32 || n > math.MaxInt32) {
		return 0, false
	}
	return n, ok
}

func genIntHint(t types.Type) string {
	switch t.Kind {
	case types.Date:
		return "a date such as '2024-01-01'"
	case types.Decimal:
		return fmt.Sprintf("a %s number", t.Plain().Nullable())
	case types.Int:
		return "an INT"
	}
	return "an integer"
}

// mix is splitmix64's output function.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// nameHash is FNV-1a of the lower-cased column name: values follow the
// column, not its position, so adding a column changes no other.
func nameHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

func (f *genField) rand(k int64) uint64 { return mix(f.key + uint64(k)*0x9e3779b97f4a7c15) }

func (f *genField) null(k int64) bool {
	return f.nullRate != 0 && mix(f.nullKey+uint64(k)*0x9e3779b97f4a7c15) < f.nullRate
}

// between maps a random word to [lo, hi] without modulo bias worth noting.
func between(r uint64, lo, hi int64) int64 {
	span := uint64(hi-lo) + 1
	if span == 0 {
		return int64(r)
	}
	h, _ := bits.Mul64(r, span)
	return lo + int64(h)
}

func unit(r uint64) float64 { return float64(r>>11) * 0x1p-53 }

// gen appends the values of rows k = k0, k0+stride, ... (n rows) to c.
func (f *genField) gen(c *column, k0, stride int64, n int) {
	k := k0
	for j := 0; j < n; j, k = j+1, k+stride {
		if f.null(k) {
			c.null()
			continue
		}
		r := f.rand(k)
		switch c.st {
		case sBool:
			c.bool(r>>63 == 1)
		case sInt32:
			if f.seq {
				c.int32(int32(f.start + k))
			} else {
				c.int32(int32(between(r, f.lo, f.hi)))
			}
		case sInt64:
			switch {
			case f.t.IsTimestamp():
				v := f.start + k*f.step
				if !f.seq && f.maxPast > 0 {
					v -= int64(r % uint64(f.maxPast))
				}
				c.int64(v)
			case f.seq:
				c.int64(f.start + k)
			default:
				c.int64(between(r, f.lo, f.hi))
			}
		case sFloat32, sFloat64:
			v := float64(f.start + k)
			if !f.seq {
				v = f.flo + unit(r)*(f.fhi-f.flo)
			}
			if c.st == sFloat32 {
				c.float32(float32(v))
			} else {
				c.float64(v)
			}
		case sDecimal:
			if f.seq {
				c.decimal(decimal128.FromI64(f.start + k).Mul(decimal128.GetScaleMultiplier(f.t.Scale)))
			} else {
				c.decimal(decimal128.FromI64(between(r, f.lo, f.hi)))
			}
		case sString:
			// The bytes go straight into the column's buffer, reserved
			// first so that the appends stay in it.
			c.mark(true)
			if f.seq {
				c.data.reserve(c.alloc, 20)
				c.data.v = strconv.AppendInt(c.data.v, f.start+k, 10)
				c.offs.push(c.alloc, int32(len(c.data.v)))
				continue
			}
			c.data.reserve(c.alloc, f.length)
			for i := 0; i < f.length; i += 13 {
				w := mix(r + uint64(i))
				for m := i; m < min(i+13, f.length); m++ {
					c.data.v = append(c.data.v, byte('a'+w%26))
					w /= 26
				}
			}
			c.offs.push(c.alloc, int32(len(c.data.v)))
		}
	}
}

type genSource struct {
	schema types.Schema
	cfg    genConfig
}

func newGenSource(s types.Schema, c genConfig) *genSource { return &genSource{schema: s, cfg: c} }

func (s *genSource) Schema() types.Schema { return s.schema }

func (s *genSource) Bounded() bool { return s.cfg.total >= 0 }

// Splits are gen-0 ... gen-<splits-1>; split i makes rows i, i+splits, ...
func (s *genSource) Splits() ([]exec.Split, error) {
	out := make([]exec.Split, s.cfg.splits)
	for i := range out {
		out[i] = exec.Split{ID: fmt.Sprintf("gen-%d", i), Index: i}
	}
	return out, nil
}

// Open starts split at off.Pos, the number of the next row to make (the
// zero offset is the split's first row).
func (s *genSource) Open(split exec.Split, off exec.Offset, ro exec.ReadOptions) (exec.SplitReader, error) {
	if split.Index < 0 || int64(split.Index) >= s.cfg.splits {
		return nil, fmt.Errorf("datagen: no split %d", split.Index)
	}
	stride, first := s.cfg.splits, int64(split.Index)
	next := max(off.Pos, first)
	if r := (next - first) % stride; r != 0 {
		next += stride - r
	}
	if ro.BatchSize <= 0 {
		ro.BatchSize = 1024
	}
	b := newBatch(s.schema)
	b.use(ro.Alloc)
	rowBytes := 1
	for _, f := range s.cfg.fields {
		rowBytes += f.length + 20
	}
	return &genReader{
		src:     s,
		b:       b,
		ro:      ro,
		stride:  stride,
		next:    next,
		rows:    off.Line,
		maxRows: max(1, maxBatchBytes/rowBytes),
		t0:      time.Now(),
	}, nil
}

type genReader struct {
	src     *genSource
	b       *batch
	ro      exec.ReadOptions
	stride  int64
	next    int64 // number of the next row to make
	rows    int64 // rows this split has made, carried in Offset.Line
	opened  int64 // rows made since Open, for the rate schedule
	maxRows int
	t0      time.Time
	closed  bool
}

func (r *genReader) Next() (arrow.RecordBatch, error) {
	if r.closed {
		return nil, io.EOF
	}
	cfg := &r.src.cfg
	n := int64(min(r.ro.BatchSize, r.maxRows))
	if cfg.total >= 0 {
		if r.next >= cfg.total {
			return nil, io.EOF
		}
		n = min(n, (cfg.total-r.next+r.stride-1)/r.stride)
	}
	if cfg.rate > 0 {
		n = min(n, r.due(n))
	}
	for i := range cfg.fields {
		cfg.fields[i].gen(&r.b.cols[i], r.next, r.stride, int(n))
	}
	r.b.n = int(n)
	r.next += n * r.stride
	r.rows += n
	r.opened += n
	return r.b.flush(), nil
}

// due returns how many rows the schedule allows now, up to want, after
// sleeping at most 50 ms for them. The split's share of rows-per-second
// starts at Open: row j since then is due at j / (rate / splits) seconds.
func (r *genReader) due(want int64) int64 {
	perSec := float64(r.src.cfg.rate) / float64(r.stride)
	ready := func() int64 {
		return int64(time.Since(r.t0).Seconds()*perSec) + 1 - r.opened
	}
	if n := ready(); n < want {
		full := r.t0.Add(time.Duration(float64(r.opened+want-1) / perSec * float64(time.Second)))
		time.Sleep(min(time.Until(full), 50*time.Millisecond))
	}
	return max(0, min(want, ready()))
}

func (r *genReader) Offset() exec.Offset { return exec.Offset{Pos: r.next, Line: r.rows} }

func (r *genReader) Close() error { r.closed = true; return nil }
