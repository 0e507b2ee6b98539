package planner

import (
	"fmt"
	"strings"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// PlanQuery binds an INSERT or a query statement into a logical plan
// rooted at a Sink, or a statement set into a SinkSet of them.
func PlanQuery(cat *Catalog, st parser.Statement) (Node, error) {
	if set, ok := st.(*parser.StatementSet); ok {
		return planSet(cat, set)
	}
	cat.resolveFuncs(st)
	b := &binder{cat: cat}
	var root Node
	var err error
	switch st := st.(type) {
	case *parser.Insert:
		root, err = b.insert(st)
	case parser.Query:
		var r *relation
		if r, err = b.statement(st); err == nil {
			root = &Sink{Input: r.node}
		}
	default:
		return nil, errorf(st.Pos(), ErrUnsupported, "%T is not a query", st)
	}
	if err == nil {
		err = distinctUIDs(root, st.Pos())
	}
	if err == nil {
		// On the optimized plan: a Rank whose row numbers nobody reads
		// is a deduplication, whose changelog mode is its own.
		err = checkChangelog(Optimize(root))
	}
	if err != nil {
		return nil, err
	}
	return root, nil
}

func (b *binder) insert(st *parser.Insert) (Node, error) {
	if st.Overwrite {
		return nil, errorf(st.Start, ErrUnsupported, "INSERT OVERWRITE is not supported on streams")
	}
	opts, err := tableOptions(st.Hints)
	if err != nil {
		return nil, err
	}
	t := b.cat.Table(identName(st.Table))
	if t == nil {
		if b.cat.View(identName(st.Table)) != nil {
			return nil, errorf(st.Table.Start, ErrUnsupported, "cannot INSERT INTO view '%s'", identName(st.Table))
		}
		return nil, errorf(st.Table.Start, ErrUnknownTable, "unknown table '%s'%s", identName(st.Table), b.known())
	}
	if opts != nil {
		if t, err = withOptions(t, opts, false); err != nil {
			return nil, err
		}
	}
	r, err := b.statement(st.Query)
	if err != nil {
		return nil, err
	}
	sinkSchema := t.Sink().Schema
	// targets[i] is the query column written to sink column i, or -1.
	targets := make([]int, len(sinkSchema))
	if len(st.Columns) == 0 {
		if len(r.scope.cols) != len(sinkSchema) {
			return nil, errorf(st.Query.Pos(), ErrType, "query has %d columns but table '%s' has %d (%s)", len(r.scope.cols), t.Name, len(sinkSchema), strings.Join(sinkSchema.Names(), ", "))
		}
		for i := range targets {
			targets[i] = i
		}
	} else {
		if len(st.Columns) != len(r.scope.cols) {
			return nil, errorf(st.Query.Pos(), ErrType, "query has %d columns but %d target columns are listed", len(r.scope.cols), len(st.Columns))
		}
		for i := range targets {
			targets[i] = -1
		}
		for qi, id := range st.Columns {
			si := sinkSchema.Index(id.Parts[len(id.Parts)-1])
			if si < 0 {
				return nil, errorf(id.Start, ErrUnknownColumn, "table '%s' has no column '%s' (columns: %s)", t.Name, id.Parts[len(id.Parts)-1], strings.Join(sinkSchema.Names(), ", "))
			}
			targets[si] = qi
		}
	}
	p := &Project{Input: r.node, Out: sinkSchema}
	for si, qi := range targets {
		dst := sinkSchema[si].Type
		if qi < 0 {
			p.Exprs = append(p.Exprs, &expr.Lit{V: types.NullOf(dst)})
			continue
		}
		src := r.scope.cols[qi]
		if !assignable(src.typ, dst) {
			return nil, errorf(st.Query.Pos(), ErrType, "cannot write column %d (%s %s) to '%s' %s of table '%s'; CAST it explicitly",
				qi+1, src.name, src.typ.Plain(), sinkSchema[si].Name, dst, t.Name)
		}
		var e expr.Expr = &expr.Col{Index: qi, Name: src.name, T: src.typ}
		if !types.Same(src.typ, dst) || dst.Kind == types.Decimal && src.typ != dst {
			e = &expr.Cast{X: e, T: dst.Plain().WithNotNull(src.typ.NotNull)}
		}
		p.Exprs = append(p.Exprs, e)
	}
	return &Sink{Input: p, Table: t, At: st.Table.Start}, nil
}

// assignable reports whether a value of type src may be written to a
// column of type dst without an explicit CAST: the same type, a wider
// number, or a string into a string.
func assignable(src, dst types.Type) bool {
	switch {
	case src.Kind == types.Null, types.Same(src, dst):
		return true
	case src.IsNumeric() && dst.IsNumeric():
		if src.Kind == types.Decimal && dst.Kind == types.Decimal {
			return dst.Scale >= src.Scale && dst.Precision-dst.Scale >= src.Precision-src.Scale
		}
		return numericRank(src.Kind) <= numericRank(dst.Kind)
	case src.IsTimestamp() && dst.IsTimestamp():
		return true
	}
	return false
}

// Explained is what EXPLAIN shows of a statement.
type Explained struct {
	Logical, Optimized Node
	Physical           string
}

func (e *Explained) String() string {
	return fmt.Sprintf("== Abstract Syntax Tree ==\n%s\n== Optimized Logical Plan ==\n%s\n== Physical Plan ==\n%s",
		Explain(e.Logical), Explain(e.Optimized), e.Physical)
}
