package expr

import (
	"fmt"
	"unsafe"

	"github.com/strandsql/strand/types"
)

// Timestamps are int64 milliseconds since the epoch, UTC; dates int32
// days. Kernels that need calendar fields convert per row with
// types.Civil, which is arithmetic only.

func isTime(t types.Type) bool { return t.IsTimestamp() || t.Kind == types.Date }

// millis reads row i of a TIMESTAMP or DATE vec as epoch milliseconds.
func millis(v *vec, p phys, i int) int64 {
	if v.konst {
		i = 0
	}
	if p == pI32 {
		return int64(col[int32](v)[i]) * types.MsDay
	}
	return col[int64](v)[i]
}

func (c *compiler) dateFormat(e *Call) (*node, error) {
	if err := arity(e, 2, 2); err != nil {
		return nil, err
	}
	if e.T.Kind != types.String {
		return nil, errorf(e, "DATE_FORMAT returns STRING, not %s", e.T)
	}
	x, err := c.typed(e, e.Args[0], types.TTimestamp, func(t types.Type) bool { return isTime(t) || isString(t) })
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, x)
	nd.strict = true
	var fixed []token
	if p, ok := litString(e.Args[1]); ok {
		if fixed, err = parseFormat(p, false); err != nil {
			return nil, errorf(e, "%v", err)
		}
	} else {
		p, err := c.typed(e, e.Args[1], types.TString, isString)
		if err != nil {
			return nil, err
		}
		nd.kids = append(nd.kids, p)
		nd.in = append(nd.in, nil)
	}
	fromString := x.p == pStr
	var last string
	var toks []token
	nd.kern = func(rows int, act []uint64) error {
		v := nd.in[0]
		offs := nd.strs(rows, rows*16)
		d := nd.own.data
		for i := 0; i < rows; i++ {
			if nd.live(i, act) {
				ts := fixed
				if ts == nil {
					if p := nd.in[1].str(i); toks == nil || string(p) != last {
						last = string(p)
						var err error
						if toks, err = parseFormat(last, false); err != nil {
							toks = nil
							return fmt.Errorf("%w: %v", ErrRuntime, err)
						}
					}
					ts = toks
				}
				var ms int64
				ok := true
				if fromString {
					s := trimSpace(v.str(i))
					ms, ok = types.ParseTimestamp(unsafe.String(unsafe.SliceData(s), len(s)))
				} else {
					ms = millis(v, x.p, i)
				}
				if ok {
					d = appendFormat(d, ts, ms)
				} else { // Flink gives NULL for a string it cannot read
					nd.setNull(i, rows)
				}
			}
			offs[i+1] = int32(len(d))
		}
		nd.own.data = d
		nd.strsDone(offs)
		return nil
	}
	return nd, nil
}

// field extracts one EXTRACT unit from epoch milliseconds.
type field func(ms int64) int64

func timeField(unit string) field {
	mod := func(a, b int64) int64 { return a - types.FloorDiv(a, b)*b }
	switch unit {
	case "YEAR":
		return func(ms int64) int64 { y, _, _, _, _, _, _ := types.Civil(ms); return int64(y) }
	case "QUARTER":
		return func(ms int64) int64 { _, m, _, _, _, _, _ := types.Civil(ms); return int64(m+2) / 3 }
	case "MONTH":
		return func(ms int64) int64 { _, m, _, _, _, _, _ := types.Civil(ms); return int64(m) }
	case "WEEK":
		return isoWeek
	case "DAY":
		return func(ms int64) int64 { _, _, d, _, _, _, _ := types.Civil(ms); return int64(d) }
	case "HOUR":
		return func(ms int64) int64 { return mod(ms, types.MsDay) / types.MsHour }
	case "MINUTE":
		return func(ms int64) int64 { return mod(ms, types.MsHour) / types.MsMinute }
	case "SECOND":
		return func(ms int64) int64 { return mod(ms, types.MsMinute) / types.MsSecond }
	case "MILLISECOND":
		return func(ms int64) int64 { return mod(ms, types.MsSecond) }
	case "DOW":
		return func(ms int64) int64 { return int64(types.DayOfWeek(ms)) }
	case "DOY":
		return func(ms int64) int64 { return int64(types.DayOfYear(ms)) }
	case "EPOCH":
		return func(ms int64) int64 { return ms / types.MsSecond } // truncated, as Flink
	}
	return nil
}

// isoWeek is the ISO 8601 week of the year: weeks start on Monday, and
// week 1 holds the year's first Thursday.
func isoWeek(ms int64) int64 {
	days := types.FloorDiv(ms, types.MsDay)
	wd := ((days+3)%7 + 7) % 7 // from Monday; 1970-01-01 was a Thursday
	thursday := days - wd + 3
	return int64(types.DayOfYear(thursday*types.MsDay)-1)/7 + 1
}

// intervalField extracts a unit from an interval, signed as Java's / and %
// leave it.
func intervalField(unit string, months bool) field {
	if months {
		switch unit {
		case "YEAR":
			return func(m int64) int64 { return m / 12 }
		case "MONTH":
			return func(m int64) int64 { return m % 12 }
		}
		return nil
	}
	switch unit {
	case "DAY":
		return func(ms int64) int64 { return ms / types.MsDay }
	case "HOUR":
		return func(ms int64) int64 { return ms % types.MsDay / types.MsHour }
	case "MINUTE":
		return func(ms int64) int64 { return ms % types.MsHour / types.MsMinute }
	case "SECOND":
		return func(ms int64) int64 { return ms % types.MsMinute / types.MsSecond }
	case "MILLISECOND":
		return func(ms int64) int64 { return ms % types.MsSecond }
	}
	return nil
}

func (c *compiler) extract(e *Call) (*node, error) {
	if err := arity(e, 2, 2); err != nil {
		return nil, err
	}
	unit, ok := litString(e.Args[0])
	if !ok {
		return nil, errorf(e, "EXTRACT's unit must be a string literal")
	}
	if !e.T.IsIntegral() {
		return nil, errorf(e, "EXTRACT returns BIGINT, not %s", e.T)
	}
	t := e.Args[1].Type()
	var f field
	switch {
	case isTime(t):
		f = timeField(unit)
	case t.IsInterval():
		f = intervalField(unit, t.Kind == types.IntervalYearMonth)
	case t.Kind == types.Null:
		t, f = types.TTimestamp, timeField(unit)
	}
	if f == nil {
		return nil, errorf(e, "cannot extract %s from %s", unit, t)
	}
	x, err := c.arg(e.Args[1], t)
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, x)
	nd.strict = true
	scale := int64(1)
	if t.Kind == types.Date {
		scale = types.MsDay
	}
	if nd.p == pI32 {
		nd.kern = extract[int32](nd, f, scale)
	} else {
		nd.kern = extract[int64](nd, f, scale)
	}
	return nd, nil
}

func extract[T integer](nd *node, f field, scale int64) func(int, []uint64) error {
	return func(rows int, _ []uint64) error {
		v := nd.in[0]
		o := out[T](nd, rows)
		if nd.kids[0].p == pI32 {
			for i, x := range col[int32](v)[:rows] {
				o[i] = T(f(int64(x) * scale))
			}
			return nil
		}
		for i, x := range col[int64](v)[:rows] {
			o[i] = T(f(x))
		}
		return nil
	}
}

func (c *compiler) floorTime(e *Call) (*node, error) {
	if err := arity(e, 2, 2); err != nil {
		return nil, err
	}
	unit, ok := litString(e.Args[1])
	if !ok {
		return nil, errorf(e, "%s's unit must be a string literal", e.Fn)
	}
	if _, ok := types.FloorTimestamp(0, unit); !ok {
		return nil, errorf(e, "unknown unit %s", unit)
	}
	if !isTime(e.T) || !sameType(e.Args[0].Type(), e.T) {
		return nil, errorf(e, "%s needs a TIMESTAMP or DATE of the result's type", e.Fn)
	}
	x, err := c.arg(e.Args[0], e.T)
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, x)
	nd.strict = true
	ceil := e.Fn == CeilTime
	u, fixed := types.UnitMillis(unit)
	if unit == "WEEK" {
		fixed = false
	}
	if e.T.Kind == types.Date {
		if fixed && u <= types.MsDay {
			nd.run = func(s *state, n int, act []uint64) (*vec, error) { return x.eval(s, n, act) }
			return nd, nil
		}
		nd.kern = func(rows int, _ []uint64) error {
			o := out[int32](nd, rows)
			for i, d := range col[int32](nd.in[0])[:rows] {
				o[i] = int32(roundTime(int64(d)*types.MsDay, unit, ceil) / types.MsDay)
			}
			return nil
		}
		return nd, nil
	}
	nd.kern = func(rows int, _ []uint64) error {
		o := out[int64](nd, rows)
		x := col[int64](nd.in[0])[:rows]
		switch {
		case fixed && ceil:
			for i, v := range x {
				o[i] = -types.FloorDiv(-v, u) * u
			}
		case fixed:
			for i, v := range x {
				o[i] = types.FloorDiv(v, u) * u
			}
		default:
			for i, v := range x {
				o[i] = roundTime(v, unit, ceil)
			}
		}
		return nil
	}
	return nd, nil
}

func roundTime(ms int64, unit string, ceil bool) int64 {
	var r int64
	if ceil {
		r, _ = types.CeilTimestamp(ms, unit)
	} else {
		r, _ = types.FloorTimestamp(ms, unit)
	}
	return r
}

func (c *compiler) addInterval(e *Call) (*node, error) {
	if err := arity(e, 2, 2); err != nil {
		return nil, err
	}
	base, iv := e.Args[0], e.Args[1]
	if e.Fn == AddInterval && base.Type().IsInterval() {
		base, iv = iv, base
	}
	bt, it := base.Type(), iv.Type()
	if bt.Kind == types.Null {
		bt = e.T
	}
	if !isTime(bt) || !it.IsInterval() || !isTime(e.T) || (bt.IsTimestamp() && !e.T.IsTimestamp()) {
		return nil, errorf(e, "cannot compute %s %s %s giving %s", base.Type(), e.Fn, it, e.T)
	}
	b, err := c.arg(base, bt)
	if err != nil {
		return nil, err
	}
	i, err := c.arg(iv, it)
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, b, i)
	nd.strict = true
	op := Add
	sign := int64(1)
	if e.Fn == SubInterval {
		op, sign = Sub, -1
	}
	if b.p == pI64 && i.p == pI64 { // timestamp ± milliseconds
		nd.kern = arithKern[int64](nd, op)
		return nd, nil
	}
	months := it.Kind == types.IntervalYearMonth
	shift := func(bv, iv *vec, r int) int64 {
		ms := millis(bv, b.p, r)
		switch {
		case months:
			return types.AddMonths(ms, int32(sign)*col[int32](iv)[r*step(iv)])
		case e.T.Kind == types.Date: // whole days, truncated as Flink does
			return ms + sign*col[int64](iv)[r*step(iv)]/types.MsDay*types.MsDay
		}
		return ms + sign*col[int64](iv)[r*step(iv)]
	}
	nd.kern = func(rows int, _ []uint64) error {
		bv, iv := nd.in[0], nd.in[1]
		if nd.p == pI32 {
			o := out[int32](nd, rows)
			for r := range o {
				o[r] = int32(types.FloorDiv(shift(bv, iv, r), types.MsDay))
			}
			return nil
		}
		o := out[int64](nd, rows)
		for r := range o {
			o[r] = shift(bv, iv, r)
		}
		return nil
	}
	return nd, nil
}

func (c *compiler) now(e *Call) (*node, error) {
	if err := arity(e, 0, 0); err != nil {
		return nil, err
	}
	if !e.T.IsTimestamp() {
		return nil, errorf(e, "%s returns a timestamp, not %s", e.Fn, e.T)
	}
	nd := newNode(e.T)
	nd.clock = true
	c.clock = true
	nd.run = func(s *state, _ int, _ []uint64) (*vec, error) {
		nd.out = vec{konst: true}
		out[int64](nd, 1)[0] = s.now
		return &nd.out, nil
	}
	return nd, nil
}
