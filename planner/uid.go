package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/rank"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// uidVersion versions the canonical encoding below. Changing what the
// encoding says of an operator changes every uid of that kind, so that a
// restore refuses old state instead of mis-mapping it; bump it with any
// such change and say why.
const uidVersion = "strand-uid/1"

// UID is a stateful operator's identity in checkpoints and savepoints. A
// hint sets it (/*+ UID('name') */ on the SELECT that defines the
// operator); otherwise it is derived from a canonical encoding of what the
// operator's state depends on: the tables it reads from, its input
// columns' names and types, and its own spec (window, keys, aggregates;
// for a Top-N its partitioning and order). It is not derived from EXPLAIN
// text, aliases of the output, or anything downstream, so an edit that does
// not change what the state means (a comment, an output alias, a filter or
// projection above the operator, a filter below it, another statement)
// keeps the uid, and one that does (the window size, a key, the aggregate
// list) changes it, which a restore then reports.
func UID(n Node) string {
	switch n := n.(type) {
	case *WindowAgg:
		if n.UIDHint != "" {
			return n.UIDHint
		}
		return "window-" + uidHash(windowCanon(n))
	case *TopN:
		if n.UIDHint != "" {
			return n.UIDHint
		}
		return "topn-" + uidHash(topNCanon(n))
	case *Join:
		if n.UIDHint != "" {
			return n.UIDHint
		}
		return "join-" + uidHash(joinCanon(n))
	case *Rank:
		if n.UIDHint != "" {
			return n.UIDHint
		}
		return "rank-" + uidHash(rankCanon(n))
	case *GroupAgg:
		if n.UIDHint != "" {
			return n.UIDHint
		}
		return "groupagg-" + uidHash(groupAggCanon(n))
	case *Over:
		if n.UIDHint != "" {
			return n.UIDHint
		}
		return "over-" + uidHash(overCanon(n))
	case *Normalize:
		return n.uid()
	case *Materialize:
		return n.uid()
	case *WindowTVF:
		if n.UIDHint != "" {
			return n.UIDHint
		}
		if n.Window.Kind == window.Session {
			return "session-" + uidHash(sessionCanon(n))
		}
	}
	return ""
}

// sessionCanon is the canonical encoding of a SESSION window TVF that no
// window aggregate takes in: it keeps its input's rows until their
// sessions fire, so their columns are part of its state, and the time
// column, partitioning and gap decide the sessions.
func sessionCanon(w *WindowTVF) string {
	in := w.Input.Schema()
	var b strings.Builder
	fmt.Fprintf(&b, "session-tvf\nsources %s\n", strings.Join(sourceTables(w), ","))
	for i := range in {
		fmt.Fprintf(&b, "in %s\n", canonCol(in, i))
	}
	fmt.Fprintf(&b, "time %s\ngap %d\n", canonCol(in, w.TimeCol), w.Window.Size)
	for _, p := range w.Partition {
		fmt.Fprintf(&b, "partition %s\n", canonCol(in, p))
	}
	return b.String()
}

// joinCanon is the canonical encoding of a regular join: it keeps each
// side's rows, so their columns are part of its state, and its kind, keys
// and residual condition decide what its match counts count.
func joinCanon(j *Join) string {
	var b strings.Builder
	fmt.Fprintf(&b, "join %s\n", j.Kind.flinkName())
	if j.NullAware {
		b.WriteString("null-aware\n")
	}
	if j.Interval != nil {
		fmt.Fprintf(&b, "interval %s\n", j.Interval)
	}
	if w := j.Window; w != nil {
		fmt.Fprintf(&b, "window %v %d %d %d\n", w.Window.Kind, w.Window.Size, w.Window.Slide, w.Window.Offset)
	}
	if t := j.Temporal; t != nil {
		fmt.Fprintf(&b, "temporal %d %d\n", t.LeftTime, t.RightTime)
	}
	for side, in := range []Node{j.Left, j.Right} {
		s := in.Schema()
		fmt.Fprintf(&b, "side %d sources %s\n", side, strings.Join(sourceTables(in), ","))
		for i := range s {
			fmt.Fprintf(&b, "in %s\n", canonCol(s, i))
		}
		for _, k := range [][]int{j.LeftKeys, j.RightKeys}[side] {
			fmt.Fprintf(&b, "key %s\n", canonCol(s, k))
		}
	}
	if j.Residual != nil {
		fmt.Fprintf(&b, "where %s\n", j.Residual)
	}
	return b.String()
}

// rankCanon is the canonical encoding of a Top-N or deduplication outside
// windows: it keeps its input's rows, so their columns are part of its
// state, and its strategy, partitioning and order decide which it keeps.
// Whether it is a deduplication depends on whether anything reads the row
// numbers, which the optimizer decides, so it is in the state's
// fingerprint (rank.DedupSpec's and rank.Spec's differ), as the rank range
// is, and not here: the uid is the same before and after optimizing.
func rankCanon(r *Rank) string {
	in := r.Input.Schema()
	var b strings.Builder
	fmt.Fprintf(&b, "rank %s\n", r.Strategy())
	if r.Func != rank.RowNumber {
		fmt.Fprintf(&b, "func %s\n", r.Func)
	}
	fmt.Fprintf(&b, "sources %s\n", strings.Join(sourceTables(r), ","))
	for i := range in {
		fmt.Fprintf(&b, "in %s\n", canonComputed(r.Input, i))
	}
	for _, p := range r.Partition {
		fmt.Fprintf(&b, "partition %s\n", canonCol(in, p))
	}
	for _, o := range r.Order {
		fmt.Fprintf(&b, "order %s desc=%t nulls-last=%t\n", canonCol(in, o.Col), o.Desc, o.NullsLast)
	}
	return b.String()
}

// StatefulUIDs are the uids of the stateful operators of the plan root,
// root first.
func StatefulUIDs(root Node) []string {
	var out []string
	var walk func(Node)
	walk = func(n Node) {
		if uid := UID(n); uid != "" {
			out = append(out, uid)
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(root)
	return out
}

func uidHash(canon string) string {
	return fmt.Sprintf("%016x", memseg.Hash([]byte(uidVersion+"\n"+canon)))
}

// windowCanon is the canonical encoding of a window aggregate.
func windowCanon(w *WindowAgg) string {
	in := w.Input.Schema()
	var b strings.Builder
	fmt.Fprintf(&b, "window-aggregate\nsources %s\n", strings.Join(sourceTables(w), ","))
	if w.TimeCol < 0 {
		b.WriteString("time proctime\n")
	} else {
		fmt.Fprintf(&b, "time %s\n", canonCol(in, w.TimeCol))
	}
	if win := w.Window; win.Kind == window.Tumble {
		fmt.Fprintf(&b, "tumble %d %d\n", win.Size, win.Offset) // as before there were other kinds
	} else {
		fmt.Fprintf(&b, "%v %d %d %d\n", win.Kind, win.Size, win.Slide, win.Offset)
	}
	if w.Assigned {
		b.WriteString("assigned by window_end\n")
	}
	b.WriteString(expandCanon(w.Input))
	for _, k := range w.Keys {
		fmt.Fprintf(&b, "key %s\n", canonComputed(w.Input, k))
	}
	for _, a := range w.Aggs {
		arg, filter := "*", "-"
		if a.Arg >= 0 {
			arg = canonComputed(w.Input, a.Arg)
		}
		if a.Filter >= 0 {
			filter = canonComputed(w.Input, a.Filter)
		}
		fmt.Fprintf(&b, "agg %v(%s) distinct=%t filter=%s -> %s\n", a.Kind, arg, a.Distinct, filter, a.Out.Plain().Nullable())
	}
	return b.String()
}

// topNCanon is the canonical encoding of a Top-N: it buffers its input's
// rows, so their columns are part of its state; the limit and the row
// number are not (they decide what is emitted, not what is kept).
func topNCanon(t *TopN) string {
	in := t.Input.Schema()
	var b strings.Builder
	fmt.Fprintf(&b, "window-topn\nsources %s\n", strings.Join(sourceTables(t), ","))
	for i := range in {
		fmt.Fprintf(&b, "in %s\n", canonComputed(t.Input, i))
	}
	fmt.Fprintf(&b, "window-end %s\n", canonCol(in, t.WindowEnd))
	for _, p := range t.Partition {
		fmt.Fprintf(&b, "partition %s\n", canonCol(in, p))
	}
	for _, o := range t.Order {
		fmt.Fprintf(&b, "order %s desc=%t nulls-last=%t\n", canonCol(in, o.Col), o.Desc, o.NullsLast)
	}
	return b.String()
}

// canonComputed is column i of n, and, when n is the aggregate's
// pre-projection and computes the column, the expression that computes
// it, over its input's column names rather than positions: two FILTERs
// (or arguments, or keys) of one type differ by what they compute, and a
// reordered table keeps its uids. A column read as it is adds nothing,
// so the uids of aggregates over plain columns are those they had before
// computed columns were encoded. Projections under n that the optimizer
// did not merge into it (both compute something) are read through: a
// column n reads from one that computes it is that computation.
func canonComputed(n Node, i int) string {
	if x, ok := n.(*Expand); ok && i < len(x.Input.Schema()) {
		// Through an Expand, its input's columns are the pre-projection's.
		return canonComputed(x.Input, i)
	}
	c := canonCol(n.Schema(), i)
	if e := computed(n, i); e != nil {
		return c + " = " + e.String()
	}
	return c
}

// computed is what column i of n computes when n is a projection (or a
// stack of them, with filters between, which keep their input's columns)
// that computes it, over the names of the columns it reads as they are;
// nil for a column read as it is.
func computed(n Node, i int) expr.Expr {
	if f, ok := n.(*Filter); ok {
		return computed(f.Input, i)
	}
	p, ok := n.(*Project)
	if !ok {
		return nil
	}
	if c, plain := p.Exprs[i].(*expr.Col); plain {
		return computed(p.Input, c.Index)
	}
	in := p.Input.Schema()
	by := make([]expr.Expr, len(in))
	expr.Walk(p.Exprs[i], func(x expr.Expr) bool {
		if c, ok := x.(*expr.Col); ok && by[c.Index] == nil {
			if by[c.Index] = computed(p.Input, c.Index); by[c.Index] == nil {
				by[c.Index] = &expr.Col{Name: in[c.Index].Name, T: in[c.Index].Type}
			}
		}
		return true
	})
	return substitute(p.Exprs[i], by)
}

func canonCol(s types.Schema, i int) string {
	return fmt.Sprintf("%q %s", s[i].Name, s[i].Type.Plain().Nullable())
}

// sourceTables are the tables n reads from, sorted: where the operator
// stands relative to the sources.
func sourceTables(n Node) []string {
	var out []string
	var walk func(Node)
	walk = func(n Node) {
		if s, ok := n.(*Scan); ok {
			out = append(out, s.Table.Name)
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(n)
	slices.Sort(out)
	return slices.Compact(out)
}
