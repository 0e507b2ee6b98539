package planner

import (
	"fmt"
	"strings"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// JoinKind is the kind of a regular join.
type JoinKind uint8

// The regular join kinds.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	// SemiJoin keeps the left rows that have a match, once each, with
	// the left columns only: WHERE x IN (SELECT ...), EXISTS (...).
	SemiJoin
	// AntiJoin keeps the left rows that have no match, with the left
	// columns only: WHERE NOT EXISTS (...), x NOT IN (SELECT ...).
	AntiJoin
)

func (k JoinKind) String() string {
	return [...]string{"INNER JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL OUTER JOIN", "semi join (IN, EXISTS)", "anti join (NOT IN, NOT EXISTS)"}[k]
}

// flinkName is the kind as Flink's EXPLAIN names it.
func (k JoinKind) flinkName() string {
	return [...]string{"InnerJoin", "LeftOuterJoin", "RightOuterJoin", "FullOuterJoin", "LeftSemiJoin", "LeftAntiJoin"}[k]
}

// filtering reports whether the join's output is its left rows only.
func (k JoinKind) filtering() bool { return k == SemiJoin || k == AntiJoin }

// LeftOuter reports whether the join keeps left rows without a match.
func (k JoinKind) LeftOuter() bool { return k == LeftJoin || k == FullJoin }

// RightOuter reports whether the join keeps right rows without a match.
func (k JoinKind) RightOuter() bool { return k == RightJoin || k == FullJoin }

// Join is a regular (unwindowed) join of two streams on equal keys:
// LeftKeys[i] = RightKeys[i] for every i, and Residual, the rest of the ON
// condition, over the joined row (left columns, then right). Its output is
// the left columns then the right ones, those of an outer join's padded
// side nullable; time attributes become plain timestamps, as in Flink,
// since a joined row's time is no longer ordered by any watermark. An
// interval join keeps them, its output watermark held back by its bounds,
// on a side whose rows are never padded (a NULL has no time).
type Join struct {
	Left, Right         Node
	Kind                JoinKind
	LeftKeys, RightKeys []int
	Residual            expr.Expr
	// NullAware marks the anti join of x NOT IN (SELECT y ...) where x or
	// y may be NULL: no row passes when a y is NULL, and a NULL x passes
	// only when there is no y (join.Spec.NullAware).
	NullAware bool
	// Interval, when set, makes the join an interval join.
	Interval *Interval
	// Window, when set, makes the join a window join (window_join.go).
	Window *JoinWindow
	// Temporal, when set, makes the join a temporal join (temporal.go).
	Temporal *Temporal
	// At is the join's position (its JOIN keyword), for errors about it.
	At parser.Pos
	// UIDHint is as for WindowAgg.
	UIDHint string
	// TTLHint is each side's STATE_TTL hint, if any; names are the
	// sides' names a hint knows them by (relName).
	TTLHint [2]ttlHint
	names   [2]string
}

func (j *Join) Inputs() []Node { return []Node{j.Left, j.Right} }

func (j *Join) Schema() types.Schema {
	var out types.Schema
	if j.Kind.filtering() {
		for i, f := range j.Left.Schema() {
			if !j.keepsTime(0, i) {
				f.Type = f.Type.Plain()
			}
			out = append(out, f)
		}
		return out
	}
	for i, f := range j.Left.Schema() {
		if !j.keepsTime(0, i) {
			f.Type = f.Type.Plain()
		}
		if j.Kind.RightOuter() {
			f.Type = f.Type.Nullable()
		}
		out = append(out, f)
	}
	for i, f := range j.Right.Schema() {
		if !j.keepsTime(1, i) {
			f.Type = f.Type.Plain()
		}
		if j.Kind.LeftOuter() {
			f.Type = f.Type.Nullable()
		}
		out = append(out, f)
	}
	return out
}

// keepsTime reports whether column i of side (0 left, 1 right) keeps its
// time attribute in the join's output: an interval join keeps those of a
// side never padded, a window join its window_time there, which it emits
// when the window fires, ahead of the watermark.
func (j *Join) keepsTime(side, i int) bool {
	padded := j.Kind.RightOuter()
	if side == 1 {
		padded = j.Kind.LeftOuter()
	}
	switch {
	case padded:
		return false
	case j.Window != nil:
		return i == [2]int{j.Window.LeftTime, j.Window.RightTime}[side]
	case j.Temporal != nil:
		// Its left rows are joined before the watermark passes them
		// (join.TemporalJoin holds it back by a millisecond), or at
		// once in processing time.
		return side == 0
	}
	return j.Interval != nil && !j.Kind.filtering()
}

// Mode is the join's changelog mode. An inner join of insert-only inputs
// is insert-only; one of updating inputs passes their kinds on. An outer
// join also inserts and deletes NULL-padded rows, so it always produces a
// retract stream, as Flink's.
func (j *Join) Mode() Mode {
	l, r := ChangelogMode(j.Left).Kinds, ChangelogMode(j.Right).Kinds
	k := l | r
	switch {
	case j.Window != nil:
		// Of insert-only inputs (windowJoin's condition), joined once
		// when the window fires.
		k = Inserts
	case j.Temporal != nil:
		// Each left row (insert-only: temporalJoin's condition) is
		// joined once, with the version valid at its time.
		k = Inserts
	case j.Interval != nil:
		// Of insert-only inputs (intervalOf's condition), with outer
		// rows padded only once no match can come: nothing is retracted.
		k = Inserts
	case j.Kind == SemiJoin && r == Inserts:
		// Matches only come: a left row is emitted once, never taken back.
		k = l
	case j.Kind == AntiJoin:
		// A left row is taken back when its first match comes, and
		// emitted again when a retraction takes its last one away.
		k = l | Inserts | Deletes
	case j.Kind != InnerJoin:
		k |= Inserts | Deletes
	}
	if k&UpdatesAfter != 0 {
		// An upsert input's updates become retractions: the join
		// retracts the joined rows of the old value whole.
		k |= UpdatesBefore
	}
	return Mode{Kinds: k}
}

func (j *Join) describe() string {
	names := func(s types.Schema, keys []int) string {
		out := make([]string, len(keys))
		for i, k := range keys {
			out[i] = s[k].Name
		}
		return strings.Join(out, ", ")
	}
	s := j.Schema()
	d := fmt.Sprintf("Join(joinType=[%s], leftKeys=[%s], rightKeys=[%s]", j.Kind.flinkName(), names(j.Left.Schema(), j.LeftKeys), names(j.Right.Schema(), j.RightKeys))
	if w := j.Window; w != nil {
		ls, rs := j.Left.Schema(), j.Right.Schema()
		lk, rk := without(j.LeftKeys, w.Start, w.End), without(j.RightKeys, w.Start, w.End)
		d = fmt.Sprintf("WindowJoin(joinType=[%s], window=[%s], leftWindow=[%s, %s], rightWindow=[%s, %s], leftKeys=[%s], rightKeys=[%s]", j.Kind.flinkName(), windowSpec(w.Window),
			ls[j.LeftKeys[w.Start]].Name, ls[j.LeftKeys[w.End]].Name, rs[j.RightKeys[w.Start]].Name, rs[j.RightKeys[w.End]].Name, names(ls, lk), names(rs, rk))
	}
	if j.Interval != nil {
		d = fmt.Sprintf("IntervalJoin(joinType=[%s], %s, leftKeys=[%s], rightKeys=[%s]", j.Kind.flinkName(), j.Interval, names(j.Left.Schema(), j.LeftKeys), names(j.Right.Schema(), j.RightKeys))
	}
	if j.Temporal != nil {
		d = j.describeTemporal(names)
	}
	if j.NullAware {
		d += ", nullAware=[true]"
	}
	if j.Residual != nil {
		d += fmt.Sprintf(", where=[%s]", j.Residual)
	}
	return d + fmt.Sprintf(", select=[%s])", strings.Join(s.Names(), ", "))
}

// without returns keys without the entries at positions a and b.
func without(keys []int, a, b int) []int {
	var out []int
	for i, k := range keys {
		if i != a && i != b {
			out = append(out, k)
		}
	}
	return out
}
