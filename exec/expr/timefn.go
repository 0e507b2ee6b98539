package expr

import (
	"math"

	"github.com/strandsql/strand/types"
)

// TIMESTAMPDIFF, the parsing functions (TO_TIMESTAMP and TO_DATE with a
// pattern, UNIX_TIMESTAMP), FROM_UNIXTIME, TO_TIMESTAMP_LTZ, and interval
// times integer. Times are UTC, the session time zone.

// diffUnits are TIMESTAMPDIFF's units: a fixed length in milliseconds, or
// a number of months.
var diffUnits = map[string]struct {
	ms     int64
	months int
}{
	"SECOND": {ms: types.MsSecond}, "MINUTE": {ms: types.MsMinute}, "HOUR": {ms: types.MsHour},
	"DAY": {ms: types.MsDay}, "WEEK": {ms: 7 * types.MsDay},
	"MONTH": {months: 1}, "QUARTER": {months: 3}, "YEAR": {months: 12},
}

// IsDiffUnit reports whether unit is a TIMESTAMPDIFF unit.
func IsDiffUnit(unit string) bool { _, ok := diffUnits[unit]; return ok }

func (c *compiler) timestampDiff(e *Call) (*node, error) {
	if err := arity(e, 3, 3); err != nil {
		return nil, err
	}
	unit, ok := litString(e.Args[0])
	u, known := diffUnits[unit]
	if !ok || !known {
		return nil, errorf(e, "TIMESTAMPDIFF's unit must be SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR")
	}
	if e.T.Kind != types.Int {
		return nil, errorf(e, "TIMESTAMPDIFF returns INT, not %s", e.T)
	}
	var kids []*node
	for _, a := range e.Args[1:] {
		k, err := c.typed(e, a, types.TTimestamp, isTime)
		if err != nil {
			return nil, err
		}
		kids = append(kids, k)
	}
	nd := newNode(e.T, kids...)
	nd.strict = true
	nd.kern = func(rows int, _ []uint64) error {
		o := out[int32](nd, rows)
		for i := range o {
			a, b := millis(nd.in[0], kids[0].p, i), millis(nd.in[1], kids[1].p, i)
			if u.months == 0 {
				o[i] = int32((b - a) / u.ms) // truncated toward zero; wraps as Java's (int)
			} else {
				o[i] = int32(monthsBetween(a, b) / int64(u.months))
			}
		}
		return nil
	}
	return nd, nil
}

// monthsBetween is the number of whole months from a to b, signed: the
// largest m with a + m months <= b (Calcite's subtractMonths).
func monthsBetween(a, b int64) int64 {
	if b < a {
		return -monthsBetween(b, a)
	}
	ya, ma, _, _, _, _, _ := types.Civil(a)
	yb, mb, _, _, _, _, _ := types.Civil(b)
	m := int64(yb-ya)*12 + int64(mb-ma)
	for m > 0 && types.AddMonths(a, int32(m)) > b {
		m--
	}
	return m
}

// parseArgs compiles the (s, pattern) arguments of a parsing function,
// with a literal pattern parsed once.
func (c *compiler) parseArgs(e *Call) (*node, []token, error) {
	if err := arity(e, 2, 2); err != nil {
		return nil, nil, err
	}
	kids, err := c.strArgs(e, 2, 2)
	if err != nil {
		return nil, nil, err
	}
	nd := newNode(e.T, kids...)
	nd.strict = true
	var fixed []token
	if p, ok := litString(e.Args[1]); ok {
		if fixed, err = parseFormat(p, true); err != nil {
			return nil, nil, errorf(e, "%v", err)
		}
	}
	return nd, fixed, nil
}

// patternCache keeps the tokens of the last pattern read from the data.
type patternCache struct {
	last string
	toks []token
	ok   bool
}

// at returns the tokens for row i: the literal pattern's, or those of the
// row's pattern (nil if it is bad), parsed once per distinct value.
func (pc *patternCache) at(fixed []token, v *vec, i int) []token {
	if fixed != nil {
		return fixed
	}
	if p := v.str(i); !pc.ok || string(p) != pc.last {
		pc.last, pc.ok = string(p), true
		pc.toks, _ = parseFormat(pc.last, true)
	}
	return pc.toks
}

// parseTimeFn is TO_TIMESTAMP(s, pattern) and TO_DATE(s, pattern): NULL
// when s does not match.
func (c *compiler) parseTimeFn(e *Call) (*node, error) {
	if !e.T.IsTimestamp() && e.T.Kind != types.Date {
		return nil, errorf(e, "%s returns a TIMESTAMP or a DATE, not %s", e.Fn, e.T)
	}
	nd, fixed, err := c.parseArgs(e)
	if err != nil {
		return nil, err
	}
	var pc patternCache
	date := e.T.Kind == types.Date
	nd.kern = func(rows int, act []uint64) error {
		var o64 []int64
		var o32 []int32
		if date {
			o32 = out[int32](nd, rows)
		} else {
			o64 = out[int64](nd, rows)
		}
		for i := 0; i < rows; i++ {
			if !nd.live(i, act) {
				continue
			}
			toks := pc.at(fixed, nd.in[1], i)
			ms, ok := parseTime(nd.in[0].str(i), toks, false)
			switch {
			case toks == nil || !ok:
				nd.setNull(i, rows)
			case date:
				o32[i] = int32(types.FloorDiv(ms, types.MsDay))
			default:
				o64[i] = ms
			}
		}
		return nil
	}
	return nd, nil
}

// unixTime is UNIX_TIMESTAMP(s, pattern): epoch seconds, read as Java's
// SimpleDateFormat.parse does (text after the pattern is ignored), and
// Long.MIN_VALUE when s does not match, as Flink.
func (c *compiler) unixTime(e *Call) (*node, error) {
	if e.T.Kind != types.BigInt {
		return nil, errorf(e, "UNIX_TIMESTAMP returns BIGINT, not %s", e.T)
	}
	nd, fixed, err := c.parseArgs(e)
	if err != nil {
		return nil, err
	}
	var pc patternCache
	nd.kern = func(rows int, act []uint64) error {
		o := out[int64](nd, rows)
		for i := range o {
			if !nd.live(i, act) {
				continue
			}
			o[i] = math.MinInt64
			if toks := pc.at(fixed, nd.in[1], i); toks != nil {
				if ms, ok := parseTime(nd.in[0].str(i), toks, true); ok {
					o[i] = types.FloorDiv(ms, types.MsSecond)
				}
			}
		}
		return nil
	}
	return nd, nil
}

// fromUnixTime is FROM_UNIXTIME(seconds, pattern).
func (c *compiler) fromUnixTime(e *Call) (*node, error) {
	if err := arity(e, 2, 2); err != nil {
		return nil, err
	}
	secs, err := c.typed(e, e.Args[0], types.TBigInt, types.Type.IsIntegral)
	if err != nil {
		return nil, err
	}
	pat, err := c.typed(e, e.Args[1], types.TString, isString)
	if err != nil {
		return nil, err
	}
	nd, err := strNode(e, types.String, []*node{secs, pat})
	if err != nil {
		return nil, err
	}
	var fixed []token
	if p, ok := litString(e.Args[1]); ok {
		if fixed, err = parseFormat(p, false); err != nil {
			return nil, errorf(e, "%v", err)
		}
	}
	var last string
	var cur []token
	nd.kern = strKern(nd, func(d []byte, in []*vec, i int) ([]byte, bool) {
		toks := fixed
		if toks == nil {
			if p := in[1].str(i); cur == nil || string(p) != last {
				last = string(p)
				cur, _ = parseFormat(last, false)
			}
			if toks = cur; toks == nil {
				return d, false
			}
		}
		return appendFormat(d, toks, intAt(in[0], secs.p, i)*types.MsSecond), true
	})
	return nd, nil
}

// epochToTime is TO_TIMESTAMP_LTZ(n, precision): n epoch seconds
// (precision 0) or milliseconds (3); a DOUBLE keeps its milliseconds.
func (c *compiler) epochToTime(e *Call) (*node, error) {
	if err := arity(e, 2, 2); err != nil {
		return nil, err
	}
	prec, ok := e.Args[1].(*Lit)
	if !ok || prec.V.IsNull || !prec.V.Type.IsIntegral() || (prec.V.Int != 0 && prec.V.Int != 3) {
		return nil, errorf(e, "TO_TIMESTAMP_LTZ's precision must be 0 or 3")
	}
	if !e.T.IsTimestamp() {
		return nil, errorf(e, "TO_TIMESTAMP_LTZ returns TIMESTAMP_LTZ, not %s", e.T)
	}
	x, err := c.typed(e, e.Args[0], types.TBigInt, func(t types.Type) bool { return t.IsIntegral() || t.Kind == types.Double })
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, x)
	nd.strict = true
	scale := int64(types.MsSecond)
	if prec.V.Int == 3 {
		scale = 1
	}
	nd.kern = func(rows int, act []uint64) error {
		o := out[int64](nd, rows)
		for i := range o {
			if x.p == pF64 {
				f := col[float64](nd.in[0])[i] * float64(scale)
				if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 9.2e18 {
					nd.setNull(i, rows)
					continue
				}
				o[i] = int64(math.Floor(f))
				continue
			}
			o[i] = intAt(nd.in[0], x.p, i) * scale
		}
		return nil
	}
	return nd, nil
}

// mulInterval is INTERVAL * n (either order): the interval scaled, as a
// TIMESTAMPADD becomes.
func (c *compiler) mulInterval(e *Call) (*node, error) {
	iv, n := e.Args[0], e.Args[1]
	if !iv.Type().IsInterval() {
		iv, n = n, iv
	}
	if !sameType(iv.Type(), e.T) || (!n.Type().IsIntegral() && n.Type().Kind != types.Null) {
		return nil, errorf(e, "cannot multiply %s by %s", iv.Type(), n.Type())
	}
	a, err := c.arg(iv, e.T)
	if err != nil {
		return nil, err
	}
	b, err := c.arg(n, types.TBigInt)
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, a, b)
	nd.strict = true
	nd.kern = func(rows int, _ []uint64) error {
		if nd.p == pI32 {
			o := out[int32](nd, rows)
			for i := range o {
				o[i] = col[int32](nd.in[0])[i*step(nd.in[0])] * int32(intAt(nd.in[1], b.p, i))
			}
			return nil
		}
		o := out[int64](nd, rows)
		for i := range o {
			o[i] = col[int64](nd.in[0])[i*step(nd.in[0])] * intAt(nd.in[1], b.p, i)
		}
		return nil
	}
	return nd, nil
}
