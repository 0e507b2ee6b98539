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
	// At is the join's position (its JOIN keyword), for errors about it.
	At parser.Pos
	// UIDHint is as for WindowAgg.
	UIDHint string
}

func (j *Join) Inputs() []Node { return []Node{j.Left, j.Right} }

func (j *Join) Schema() types.Schema {
	var out types.Schema
	if j.Kind.filtering() {
		for _, f := range j.Left.Schema() {
			f.Type = f.Type.Plain()
			out = append(out, f)
		}
		return out
	}
	for _, f := range j.Left.Schema() {
		if j.Interval == nil || j.Kind.RightOuter() {
			f.Type = f.Type.Plain()
		}
		if j.Kind.RightOuter() {
			f.Type = f.Type.Nullable()
		}
		out = append(out, f)
	}
	for _, f := range j.Right.Schema() {
		if j.Interval == nil || j.Kind.LeftOuter() {
			f.Type = f.Type.Plain()
		}
		if j.Kind.LeftOuter() {
			f.Type = f.Type.Nullable()
		}
		out = append(out, f)
	}
	return out
}

// Mode is the join's changelog mode. An inner join of insert-only inputs
// is insert-only; one of updating inputs passes their kinds on. An outer
// join also inserts and deletes NULL-padded rows, so it always produces a
// retract stream, as Flink's.
func (j *Join) Mode() Mode {
	l, r := ChangelogMode(j.Left).Kinds, ChangelogMode(j.Right).Kinds
	k := l | r
	switch {
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
	if j.Interval != nil {
		d = fmt.Sprintf("IntervalJoin(joinType=[%s], %s, leftKeys=[%s], rightKeys=[%s]", j.Kind.flinkName(), j.Interval, names(j.Left.Schema(), j.LeftKeys), names(j.Right.Schema(), j.RightKeys))
	}
	if j.NullAware {
		d += ", nullAware=[true]"
	}
	if j.Residual != nil {
		d += fmt.Sprintf(", where=[%s]", j.Residual)
	}
	return d + fmt.Sprintf(", select=[%s])", strings.Join(s.Names(), ", "))
}
