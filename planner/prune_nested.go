package planner

import (
	"strings"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

// Projection pushdown into ROW columns. prunedScan gives a source only
// the columns a query reads; for a ROW column of which the query reads
// only fields (person.id, person.dateTime), it also narrows the column's
// type to those fields (ROW<id, dateTime>), so that a generator makes
// and a decoder parses nothing else. Field access is by name (GetField's
// literal), so the expressions above keep working on the narrower ROW;
// only the types of the fields read along the way are recomputed
// (refield). A column read whole, or a field read whole, is kept whole.

// fieldNeed is what a query reads of a column or field: all of it, or
// some of its fields. A nil *fieldNeed reads nothing.
type fieldNeed struct {
	all    bool
	fields map[string]*fieldNeed
}

func (n *fieldNeed) field(name string) *fieldNeed {
	if n.fields == nil {
		n.fields = map[string]*fieldNeed{}
	}
	f := n.fields[name]
	if f == nil {
		f = &fieldNeed{}
		n.fields[name] = f
	}
	return f
}

// markFields records in need, per column, what e reads of it.
func markFields(e expr.Expr, need []*fieldNeed) {
	if e == nil {
		return
	}
	expr.Walk(e, func(x expr.Expr) bool {
		switch x := x.(type) {
		case *expr.Col:
			at(need, x.Index).all = true
		case *expr.Call:
			if x.Fn != expr.GetField {
				return true
			}
			var path []string
			var y expr.Expr = x
			for {
				g, ok := y.(*expr.Call)
				if !ok || g.Fn != expr.GetField {
					break
				}
				path = append(path, g.Args[1].(*expr.Lit).V.Str)
				y = g.Args[0]
			}
			col, ok := y.(*expr.Col)
			if !ok {
				return true // a field of something else: look inside it
			}
			n := at(need, col.Index)
			for i := len(path) - 1; i >= 0 && !n.all; i-- {
				n = n.field(path[i])
			}
			n.all = true
			return false
		}
		return true
	})
}

func at(need []*fieldNeed, i int) *fieldNeed {
	if need[i] == nil {
		need[i] = &fieldNeed{}
	}
	return need[i]
}

// narrow returns t with only the fields n reads, recursively.
func narrow(t types.Type, n *fieldNeed) types.Type {
	if n == nil || n.all || t.Kind != types.Row {
		return t
	}
	var fs []types.Field
	for _, f := range t.Fields() {
		if fn, ok := n.fields[f.Name]; ok {
			fs = append(fs, types.Field{Name: f.Name, Type: narrow(f.Type, fn)})
		}
	}
	return types.RowOf(fs).WithNotNull(t.NotNull)
}

// narrowedTypes returns the type each column of t's schema is read as by
// a scan under filter cond and projection exprs, and whether any is
// narrower than declared (never unless allowed). need is scanNeed's.
func narrowedTypes(t *Table, cond expr.Expr, exprs []expr.Expr, need []bool, allowed bool) ([]types.Type, bool) {
	out := make([]types.Type, len(t.Schema))
	for i, f := range t.Schema {
		out[i] = f.Type
	}
	if !allowed || !types.HasNested(t.Schema) {
		return out, false
	}
	full := make([]*fieldNeed, len(t.Schema))
	markFields(cond, full)
	for _, e := range exprs {
		markFields(e, full)
	}
	if t.TimeCol >= 0 {
		markFields(t.Watermark, full)
	}
	phys := make([]*fieldNeed, len(t.Physical))
	for pi, fi := range t.Physical {
		if t.Computed == nil {
			phys[pi] = full[fi]
		}
	}
	for fi, e := range t.Computed {
		if need[fi] {
			markFields(e, phys)
		}
	}
	narrowed := false
	for pi, fi := range t.Physical {
		if nt := narrow(out[fi], phys[pi]); nt != out[fi] {
			out[fi], narrowed = nt, true
		}
	}
	return out, narrowed
}

// readName names a column in EXPLAIN's list of the columns a source
// reads: a ROW narrowed from its declared type with the fields read,
// person{id, dateTime}, or person{address{city}}.
func readName(f types.Field, declared types.Type) string {
	if f.Type == declared.Plain() || f.Type.Kind != types.Row {
		return f.Name
	}
	var b strings.Builder
	b.WriteString(f.Name + "{")
	for i, g := range f.Type.Fields() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(readName(g, declared.Fields()[declared.FieldIndex(g.Name)].Type))
	}
	b.WriteString("}")
	return b.String()
}

// refield recomputes the types of the fields e reads after the ROWs
// they are read from were narrowed.
func refield(e expr.Expr) expr.Expr {
	e = rebuild(e, refield)
	if g, ok := e.(*expr.Call); ok && g.Fn == expr.GetField {
		rt := g.Args[0].Type()
		ft := rt.Fields()[rt.FieldIndex(g.Args[1].(*expr.Lit).V.Str)].Type
		g.T = ft.WithNotNull(ft.NotNull && g.T.NotNull)
	}
	return e
}

// equalities returns the columns of a scan's schema that cond, a
// conjunction, requires to equal an integer literal: event_type = 2.
func equalities(cond expr.Expr, schema types.Schema) map[string]int64 {
	var out map[string]int64
	var visit func(e expr.Expr)
	visit = func(e expr.Expr) {
		c, ok := e.(*expr.Call)
		if !ok {
			return
		}
		switch c.Fn {
		case expr.And:
			for _, a := range c.Args {
				visit(a)
			}
		case expr.Eq:
			col, ok1 := c.Args[0].(*expr.Col)
			lit, ok2 := c.Args[1].(*expr.Lit)
			if !ok1 || !ok2 {
				col, ok1 = c.Args[1].(*expr.Col)
				lit, ok2 = c.Args[0].(*expr.Lit)
			}
			if ok1 && ok2 && !lit.V.IsNull && lit.V.Type.IsIntegral() && col.T.IsIntegral() {
				if out == nil {
					out = map[string]int64{}
				}
				out[schema[col.Index].Name] = lit.V.Int
			}
		}
	}
	if cond != nil {
		visit(cond)
	}
	return out
}
