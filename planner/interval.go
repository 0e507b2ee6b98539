package planner

import (
	"fmt"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

// Interval makes a join an interval join, as Flink's: its condition
// bounds the left side's event time by the right side's, Lower <= lt - rt
// <= Upper (milliseconds, inclusive), on top of the join keys. Each side's
// rows are kept only while a row of the other side may still match them,
// which the other side's watermark decides, so the join's state stays
// bounded; its output only ever grows (append-only), outer rows padded
// once no match can come.
type Interval struct {
	// LeftTime and RightTime are the sides' event-time columns.
	LeftTime, RightTime int
	Lower, Upper        int64
}

func (iv *Interval) String() string {
	return fmt.Sprintf("windowBounds=[isRowTime=true, leftLowerBound=%d, leftUpperBound=%d, leftTimeIndex=%d, rightTimeIndex=%d]",
		iv.Lower, iv.Upper, iv.LeftTime, iv.RightTime)
}

// intervalOf finds, among a join's conditions terms (over the left
// columns, then the right ones from column n on), a lower and an upper
// bound of one left event-time column minus one right one, constants
// apart: a.ts BETWEEN b.ts - INTERVAL '1' HOUR AND b.ts, or pairs of >=,
// >, <=, < (a strict bound is the inclusive one a millisecond in, as in
// Flink). It returns the interval and the terms left, or nil when terms
// bound no such pair from both sides.
func intervalOf(terms []expr.Expr, n int) (*Interval, []expr.Expr) {
	type bound struct {
		lt, rt int
		lower  bool
		c      int64
		term   int
	}
	var bounds []bound
	// A BETWEEN is bound as (x >= lo AND x <= hi): one term, two bounds.
	for i, t := range terms {
		for _, c := range andTerms(t) {
			if b, ok := boundOf(c, n); ok {
				bounds = append(bounds, bound{lt: b.lt, rt: b.rt, lower: b.lower, c: b.c, term: i})
			}
		}
	}
	for _, lo := range bounds {
		for _, hi := range bounds {
			// An empty interval (lower above upper) pairs no rows: it
			// stays a regular join, whose condition is then never true,
			// as Flink's join of a negative window size pairs nothing.
			if !lo.lower || hi.lower || lo.lt != hi.lt || lo.rt != hi.rt || lo.c > hi.c {
				continue
			}
			iv := &Interval{LeftTime: lo.lt, RightTime: lo.rt - n, Lower: lo.c, Upper: hi.c}
			// The pair's bounds go; a term holding more (a BETWEEN and
			// another of the pair's bounds) is kept whole.
			var rest []expr.Expr
			for i, t := range terms {
				if (i == lo.term || i == hi.term) && onlyBounds(t, n, lo.lt, lo.rt) {
					continue
				}
				rest = append(rest, t)
			}
			return iv, rest
		}
	}
	return nil, terms
}

// onlyBounds reports whether every conjunct of t bounds left time column
// lt by right one rt.
func onlyBounds(t expr.Expr, n, lt, rt int) bool {
	for _, c := range andTerms(t) {
		if b, ok := boundOf(c, n); !ok || b.lt != lt || b.rt != rt {
			return false
		}
	}
	return true
}

// timeBound is one bound of a left time column minus a right one.
type timeBound struct {
	lt, rt int
	lower  bool // lt - rt >= c, else lt - rt <= c
	c      int64
}

// boundOf reads e as a bound on lt - rt: a comparison (>=, >, <=, <) of
// two event-time columns, one of each side, each plus or minus a constant
// day-time interval.
func boundOf(e expr.Expr, n int) (timeBound, bool) {
	c, ok := e.(*expr.Call)
	if !ok || len(c.Args) != 2 {
		return timeBound{}, false
	}
	var lower bool
	var strict int64
	switch c.Fn {
	case expr.Ge:
		lower = true
	case expr.Gt:
		lower, strict = true, 1
	case expr.Le:
	case expr.Lt:
		strict = -1
	default:
		return timeBound{}, false
	}
	a, oa, ok1 := timeRef(c.Args[0])
	b, ob, ok2 := timeRef(c.Args[1])
	if !ok1 || !ok2 || (a < n) == (b < n) {
		return timeBound{}, false
	}
	// a + oa OP b + ob, turned into lt - rt OP' c.
	if a >= n {
		a, b, oa, ob = b, a, ob, oa
		lower = !lower
		strict = -strict
	}
	return timeBound{lt: a, rt: b, lower: lower, c: ob - oa + strict}, true
}

// timeRef reads e as an event-time column plus a constant: col, col +
// INTERVAL, col - INTERVAL (an INTERVAL + col too), through a cast that
// keeps the milliseconds.
func timeRef(e expr.Expr) (col int, offset int64, ok bool) {
	if c, ok := e.(*expr.Cast); ok && !c.Try && c.T.IsTimestamp() && c.X.Type().IsTimestamp() {
		e = c.X
	}
	switch x := e.(type) {
	case *expr.Col:
		return x.Index, 0, x.T.Attr == types.RowTime
	case *expr.Call:
		if (x.Fn != expr.AddInterval && x.Fn != expr.SubInterval) || len(x.Args) != 2 {
			return 0, 0, false
		}
		lit, ok := x.Args[1].(*expr.Lit)
		if !ok || lit.V.IsNull || lit.V.Type.Kind != types.IntervalDayTime {
			return 0, 0, false
		}
		col, off, ok := timeRef(x.Args[0])
		if x.Fn == expr.SubInterval {
			return col, off - lit.V.Int, ok
		}
		return col, off + lit.V.Int, ok
	}
	return 0, 0, false
}
