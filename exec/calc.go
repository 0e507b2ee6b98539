package exec

import (
	"fmt"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

// Calc filters and projects: it keeps the rows for which Filter is TRUE
// and computes Project over them. It is stateless.
type Calc struct {
	In      types.Schema
	Filter  expr.Expr   // nil keeps every row
	Project []expr.Expr // nil passes the (filtered) columns through
	Out     types.Schema

	filter  *expr.Program
	project []*expr.Program
	// same[i] is the earlier column that Project[i] repeats, or -1: a
	// repeated expression (the planner's pre-projection of aggregates
	// repeats a FILTER condition or an argument per aggregate) is
	// computed once.
	same   []int
	ctx    *expr.Ctx
	schema *arrow.Schema
	sel    []int32
}

// NewCalc compiles a Calc; it is an OpSpec's constructor.
func NewCalc(in types.Schema, filter expr.Expr, project []expr.Expr, out types.Schema) (*Calc, error) {
	c := &Calc{In: in, Filter: filter, Project: project, Out: out, schema: out.Arrow()}
	if filter != nil {
		p, err := expr.Compile(filter, in)
		if err != nil {
			return nil, err
		}
		c.filter = p
	}
	for i, e := range project {
		p, err := expr.Compile(e, in)
		if err != nil {
			return nil, err
		}
		c.project = append(c.project, p)
		c.same = append(c.same, -1)
		for j := range i {
			if deterministic(e) && reflect.DeepEqual(e, project[j]) {
				c.same[i] = j
				break
			}
		}
	}
	return c, nil
}

// deterministic reports whether e gives the same result each time it is
// computed over a batch (the clock is read once per batch): all but UUID.
func deterministic(e expr.Expr) bool {
	ok := true
	expr.Walk(e, func(x expr.Expr) bool {
		if c, isCall := x.(*expr.Call); isCall && c.Fn == expr.UUID {
			ok = false
		}
		return ok
	})
	return ok
}

// Open implements Opener.
func (c *Calc) Open(ctx *TaskContext) error {
	c.ctx = &expr.Ctx{Alloc: ctx.Alloc, Now: ctx.Now}
	return nil
}

// Process implements Operator.
func (c *Calc) Process(b arrow.RecordBatch, out Emitter) error {
	if c.filter != nil {
		mask, err := c.filter.Eval(c.ctx, b)
		if err != nil {
			return err
		}
		c.sel = expr.SelectTrue(mask.(*array.Boolean), c.sel)
		mask.Release()
		switch len(c.sel) {
		case 0:
			return nil
		case int(b.NumRows()):
			b.Retain()
		default:
			b = WithKinds(expr.Take(c.ctx.Alloc, b, c.sel), TakeKinds(b, c.sel))
		}
		defer b.Release()
	}
	if c.project == nil {
		b.Retain()
		return out.Emit(b)
	}
	cols := make([]arrow.Array, len(c.project))
	for i, p := range c.project {
		if j := c.same[i]; j >= 0 {
			cols[j].Retain()
			cols[i] = cols[j]
			continue
		}
		a, err := p.Eval(c.ctx, b)
		if err != nil {
			for _, x := range cols[:i] {
				x.Release()
			}
			return fmt.Errorf("column %s: %w", c.Out[i].Name, err)
		}
		cols[i] = a
	}
	r := array.NewRecordBatch(c.schema, cols, b.NumRows())
	for _, x := range cols {
		x.Release()
	}
	return out.Emit(Rekind(r, b))
}
