package planner

import (
	"math/bits"
	"slices"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// Limits of grouping sets: Flink's grouping id is a BIGINT with a bit per
// grouping column; and each row is copied once per grouping set, so a
// CUBE of many columns (2^n sets) is refused rather than run.
const (
	maxGroupingKeys = 62
	maxGroupingSets = 4096
)

// grouping is what a GROUP BY groups by besides its window: its keys,
// each once, in the order they are first written, and its grouping sets,
// each as the id ($e) its rows carry (Flink's expand id): bit nk-1-i is
// set when key i is not in the set, so the first key is the most
// significant bit and a set of every key is 0; a set listed again gets
// its ordinal among its copies above those bits, so that its rows form
// groups of their own, as in Flink, where each copy of a grouping set
// yields its own rows (Calcite's GROUP_ID). ids is nil for a plain GROUP
// BY: one set of every key, which needs no Expand.
type grouping struct {
	keys []parser.Expr
	ids  []int64
}

// groupingOf reads GROUP BY items (without the window's) over the input
// scope sc. Items without GROUPING SETS, ROLLUP, CUBE, lists or () are
// the keys of a plain GROUP BY, as written. Otherwise the grouping sets
// are the cross product of the items' sets, as Calcite defines them: an
// expression is one set of itself, a list (a, b) one set of its
// expressions, () the empty set, ROLLUP(e1, ..., en) the n+1 prefixes of
// its elements, CUBE(e1, ..., en) their 2^n subsets, and GROUPING SETS
// (...) the sets of its items one after the other. ROLLUP and CUBE
// elements are expressions or lists.
func groupingOf(items []parser.Expr, sc *scope) (*grouping, error) {
	g := &grouping{}
	if !slices.ContainsFunc(items, isGroupingElement) {
		g.keys = items
		return g, nil
	}
	sets := []uint64{0} // bit i: key i is in the set
	for _, it := range items {
		s, err := g.setsOf(it, sc)
		if err != nil {
			return nil, err
		}
		if n := len(sets) * len(s); n > maxGroupingSets {
			return nil, errorf(it.Pos(), ErrUnsupported, "GROUP BY makes %d grouping sets, more than %d: each row is copied once per grouping set", n, maxGroupingSets)
		}
		var cross []uint64
		for _, a := range sets {
			for _, b := range s {
				cross = append(cross, a|b)
			}
		}
		sets = cross
	}
	nk := len(g.keys)
	copies := map[uint64]int64{}
	for _, s := range sets {
		absent := ^s & (1<<nk - 1)
		id := int64(bits.Reverse64(absent) >> (64 - nk)) // key i at bit nk-1-i
		n := copies[s]
		copies[s]++
		if n > 0 && nk+bits.Len64(uint64(n)) > maxGroupingKeys {
			return nil, errorf(items[0].Pos(), ErrUnsupported, "GROUP BY repeats a grouping set of %d columns: too many to number its copies", nk)
		}
		g.ids = append(g.ids, id|n<<nk)
	}
	slices.Sort(g.ids)
	if len(g.ids) == 1 {
		g.ids = nil
	}
	return g, nil
}

func isGroupingElement(e parser.Expr) bool {
	_, ok := e.(*parser.GroupingElement)
	return ok
}

// key returns the bit of key e, making it a key if it is not one yet.
func (g *grouping) key(e parser.Expr, sc *scope) (uint64, error) {
	for i, k := range g.keys {
		if sameKey(sc, k, e) {
			return 1 << i, nil
		}
	}
	if len(g.keys) == maxGroupingKeys {
		return 0, errorf(e.Pos(), ErrUnsupported, "more than %d grouping columns with GROUPING SETS, ROLLUP or CUBE", maxGroupingKeys)
	}
	g.keys = append(g.keys, e)
	return 1 << (len(g.keys) - 1), nil
}

// setsOf returns the grouping sets of one grouping element.
func (g *grouping) setsOf(e parser.Expr, sc *scope) ([]uint64, error) {
	ge, ok := e.(*parser.GroupingElement)
	if !ok || ge.Kind == "" {
		s, err := g.elementOf(e, sc)
		return []uint64{s}, err
	}
	if ge.Kind == "GROUPING SETS" {
		var out []uint64
		for _, it := range ge.Items {
			s, err := g.setsOf(it, sc)
			if err != nil {
				return nil, err
			}
			if out = append(out, s...); len(out) > maxGroupingSets {
				return nil, errorf(ge.Start, ErrUnsupported, "GROUPING SETS makes more than %d grouping sets: each row is copied once per grouping set", maxGroupingSets)
			}
		}
		return out, nil
	}
	elems := make([]uint64, len(ge.Items))
	for i, it := range ge.Items {
		var err error
		if elems[i], err = g.elementOf(it, sc); err != nil {
			return nil, err
		}
	}
	if ge.Kind == "ROLLUP" {
		out := make([]uint64, len(elems)+1)
		for i, s := range elems {
			out[i+1] = out[i] | s
		}
		return out, nil
	}
	if len(elems) > bits.Len(maxGroupingSets)-1 {
		return nil, errorf(ge.Start, ErrUnsupported, "CUBE of %d elements makes 2^%[1]d grouping sets, more than %d: each row is copied once per grouping set", len(elems), maxGroupingSets)
	}
	out := make([]uint64, 1<<len(elems))
	for m := range out {
		for i, s := range elems {
			if m>>i&1 == 1 {
				out[m] |= s
			}
		}
	}
	return out, nil
}

// elementOf returns the keys of an element of ROLLUP or CUBE, or of a
// list: an expression, or a list of them.
func (g *grouping) elementOf(e parser.Expr, sc *scope) (uint64, error) {
	ge, ok := e.(*parser.GroupingElement)
	if !ok {
		return g.key(e, sc)
	}
	if ge.Kind != "" {
		return 0, errorf(ge.Start, ErrUnsupported, "%s may not stand inside ROLLUP or CUBE: they take expressions and parenthesised lists of them", ge.Kind)
	}
	var s uint64
	for _, it := range ge.Items {
		b, err := g.elementOf(it, sc)
		if err != nil {
			return 0, err
		}
		s |= b
	}
	return s, nil
}

// groupingLeaves calls f on each expression a GROUP BY item groups by:
// the item itself, or those inside its grouping elements.
func groupingLeaves(e parser.Expr, f func(parser.Expr) error) error {
	ge, ok := e.(*parser.GroupingElement)
	if !ok {
		return f(e)
	}
	for _, it := range ge.Items {
		if err := groupingLeaves(it, f); err != nil {
			return err
		}
	}
	return nil
}

// groupingFuncs are the functions of the grouping: GROUPING and
// GROUPING_ID of grouping columns, and GROUP_ID.
var groupingFuncs = map[string]bool{"GROUPING": true, "GROUPING_ID": true, "GROUP_ID": true}

// call binds c when it is GROUPING(k, ...), GROUPING_ID(k, ...) or
// GROUP_ID() in the select list or HAVING of the aggregate, whose $e
// column is e (nil without grouping sets). As in Flink, GROUPING and
// GROUPING_ID are the same function: a BIGINT with a bit per argument,
// the first the most significant, 1 where the argument is not grouped in
// the row's grouping set; GROUP_ID is the ordinal of the row's grouping
// set among the copies of it that GROUP BY lists. It is a CASE over $e,
// as in Flink's plans, or a literal where it is the same in every set.
func (g *grouping) call(c *parser.Call, sc *scope, e expr.Expr) (expr.Expr, bool, error) {
	if !groupingFuncs[c.Name] {
		return nil, false, nil
	}
	if c.Distinct || c.Star || c.Filter != nil || c.Over != nil {
		return nil, true, errorf(c.Start, ErrType, "%s takes grouping columns only", c.Name)
	}
	if c.Name == "GROUP_ID" && len(c.Args) > 0 {
		return nil, true, errorf(c.Start, ErrType, "GROUP_ID takes no arguments")
	}
	if c.Name != "GROUP_ID" && (len(c.Args) == 0 || len(c.Args) > maxGroupingKeys) {
		return nil, true, errorf(c.Start, ErrType, "%s takes 1 to %d grouping columns", c.Name, maxGroupingKeys)
	}
	var at []int
	for _, a := range c.Args {
		i := slices.IndexFunc(g.keys, func(k parser.Expr) bool { return sameKey(sc, k, a) })
		if i < 0 {
			return nil, true, errorf(a.Pos(), ErrType, "the argument of %s must be a grouping column or expression of the GROUP BY: %s is not one", c.Name, a)
		}
		at = append(at, i)
	}
	nk := len(g.keys)
	value := func(id int64) int64 {
		if c.Name == "GROUP_ID" {
			return id >> nk
		}
		var v int64
		for _, i := range at {
			v = v<<1 | id>>(nk-1-i)&1
		}
		return v
	}
	lit := func(v int64) expr.Expr { return &expr.Lit{V: types.IntValue(types.TBigInt, v)} }
	ids := g.ids
	if e == nil {
		ids = []int64{0}
	}
	last := value(ids[len(ids)-1])
	out := &expr.Case{Else: lit(last), T: types.TBigInt.WithNotNull(true)}
	for _, id := range ids[:len(ids)-1] {
		if v := value(id); v != last {
			eq := call(expr.Eq, types.TBoolean.WithNotNull(true), e, lit(id))
			out.Whens = append(out.Whens, expr.When{Cond: eq, Then: lit(v)})
		}
	}
	if len(out.Whens) == 0 {
		return out.Else, true, nil
	}
	return out, true, nil
}
