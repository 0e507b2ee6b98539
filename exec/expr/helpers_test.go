package expr

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

// Test values use one Go type per SQL type: bool, int32 (INT, INTERVAL
// YEAR TO MONTH), int64 (BIGINT, INTERVAL DAY TO SECOND), float32, float64,
// and string for STRING, DECIMAL ("1.50"), DATE and TIMESTAMP (as
// types.FormatDate and FormatTimestamp print them). nil is NULL.

type column struct {
	t    types.Type
	vals []any
}

func cols(cs ...column) []column { return cs }

func schemaOf(cs []column) types.Schema {
	s := make(types.Schema, len(cs))
	for i, c := range cs {
		s[i] = types.Field{Name: fmt.Sprintf("c%d", i), Type: c.t}
	}
	return s
}

// makeBatch builds a batch from columns of equal length.
func makeBatch(t testing.TB, alloc memory.Allocator, cs []column) arrow.RecordBatch {
	t.Helper()
	s := schemaOf(cs)
	rb := array.NewRecordBuilder(alloc, s.Arrow())
	defer rb.Release()
	for i, c := range cs {
		for _, v := range c.vals {
			appendValue(t, rb.Field(i), c.t, v)
		}
	}
	return rb.NewRecordBatch()
}

func appendValue(t testing.TB, b array.Builder, ty types.Type, v any) {
	t.Helper()
	if v == nil {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(v.(bool))
	case *array.Int32Builder:
		b.Append(v.(int32))
	case *array.Int64Builder:
		b.Append(v.(int64))
	case *array.Float32Builder:
		b.Append(v.(float32))
	case *array.Float64Builder:
		b.Append(v.(float64))
	case *array.StringBuilder:
		b.Append(v.(string))
	case *array.Decimal128Builder:
		n, err := decimal128.FromString(v.(string), int32(ty.Precision), int32(ty.Scale))
		if err != nil {
			t.Fatalf("bad decimal %v: %v", v, err)
		}
		b.Append(n)
	case *array.Date32Builder:
		d, ok := types.ParseDate(v.(string))
		if !ok {
			t.Fatalf("bad date %v", v)
		}
		b.Append(arrow.Date32(d))
	case *array.TimestampBuilder:
		ms, ok := types.ParseTimestamp(v.(string))
		if !ok {
			t.Fatalf("bad timestamp %v", v)
		}
		b.Append(arrow.Timestamp(ms))
	default:
		t.Fatalf("no builder for %T", b)
	}
}

// valuesOf converts an array of SQL type ty to test values.
func valuesOf(t testing.TB, a arrow.Array, ty types.Type) []any {
	t.Helper()
	out := make([]any, a.Len())
	for i := range out {
		if a.IsNull(i) {
			continue
		}
		switch a := a.(type) {
		case *array.Boolean:
			out[i] = a.Value(i)
		case *array.Int32:
			out[i] = a.Value(i)
		case *array.Int64:
			out[i] = a.Value(i)
		case *array.Float32:
			out[i] = a.Value(i)
		case *array.Float64:
			out[i] = a.Value(i)
		case *array.String:
			out[i] = a.Value(i)
		case *array.Decimal128:
			out[i] = types.FormatDecimal(a.Value(i), ty.Scale)
		case *array.Date32:
			out[i] = types.FormatDate(int32(a.Value(i)))
		case *array.Timestamp:
			out[i] = types.FormatTimestamp(int64(a.Value(i)))
		case *array.Null:
		default:
			t.Fatalf("no conversion for %T", a)
		}
	}
	return out
}

// run evaluates e over the columns: over the whole batch, over each row
// alone (sliced, so at an offset), and checks the two agree and that no
// memory leaks.
func run(t testing.TB, e Expr, cs []column) ([]any, error) {
	t.Helper()
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	p, err := Compile(e, schemaOf(cs))
	if err != nil {
		t.Fatalf("Compile(%s): %v", e, err)
	}
	b := makeBatch(t, alloc, cs)
	defer b.Release()
	ctx := &Ctx{Alloc: alloc, Now: func() int64 { return 1_700_000_000_123 }}
	got, err := p.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer got.Release()
	if got.Len() != int(b.NumRows()) {
		t.Fatalf("%s: %d rows, want %d", e, got.Len(), b.NumRows())
	}
	if !arrow.TypeEqual(got.DataType(), e.Type().Arrow()) {
		t.Fatalf("%s: type %s, want %s", e, got.DataType(), e.Type().Arrow())
	}
	vals := valuesOf(t, got, e.Type())
	// A batch sliced at an offset that is not a multiple of 8 (or 64)
	// makes the evaluator copy bitmaps rather than view them.
	for _, k := range []int{3, 67} {
		if k >= len(vals) {
			continue
		}
		sub := b.NewSlice(int64(k), b.NumRows())
		r, err := p.Eval(ctx, sub)
		sub.Release()
		if err != nil {
			t.Fatalf("%s: rows from %d: %v", e, k, err)
		}
		for i, v := range valuesOf(t, r, e.Type()) {
			if !equal(v, vals[k+i]) {
				t.Errorf("%s: row %d is %#v in the batch, %#v in a slice from %d", e, k+i, vals[k+i], v, k)
			}
		}
		r.Release()
	}
	for i := 0; i < int(b.NumRows()); i++ {
		one := b.NewSlice(int64(i), int64(i+1))
		r, err := p.Eval(ctx, one)
		one.Release()
		if err != nil {
			t.Fatalf("%s: row %d alone: %v", e, i, err)
		}
		v := valuesOf(t, r, e.Type())[0]
		r.Release()
		if !equal(v, vals[i]) {
			t.Errorf("%s: row %d is %#v in the batch, %#v alone", e, i, vals[i], v)
		}
	}
	return vals, nil
}

func equal(a, b any) bool {
	if fa, ok := a.(float64); ok {
		if fb, ok := b.(float64); ok && fa != fa && fb != fb {
			return true
		}
	}
	if fa, ok := a.(float32); ok {
		if fb, ok := b.(float32); ok && fa != fa && fb != fb {
			return true
		}
	}
	return reflect.DeepEqual(a, b)
}

// check evaluates e and compares with want.
func check(t testing.TB, e Expr, cs []column, want ...any) {
	t.Helper()
	got, err := run(t, e, cs)
	if err != nil {
		t.Errorf("%s: %v", e, err)
		return
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", e, len(got), len(want))
		return
	}
	for i := range want {
		if !equal(got[i], want[i]) {
			t.Errorf("%s: row %d = %#v, want %#v", e, i, got[i], want[i])
		}
	}
}

// Expression builders.

func c(i int, t types.Type) *Col { return &Col{Index: i, Name: fmt.Sprintf("c%d", i), T: t} }

func call(fn Fn, t types.Type, args ...Expr) *Call { return &Call{Fn: fn, Args: args, T: t} }

func i32(v int32) *Lit   { return &Lit{V: types.IntValue(types.TInt, int64(v))} }
func i64(v int64) *Lit   { return &Lit{V: types.IntValue(types.TBigInt, v)} }
func f64(v float64) *Lit { return &Lit{V: types.FloatValue(types.TDouble, v)} }
func str(s string) *Lit  { return &Lit{V: types.StringValue(s)} }
func boolean(b bool) *Lit {
	return &Lit{V: types.BoolValue(b)}
}
func null(t types.Type) *Lit { return &Lit{V: types.NullOf(t)} }

func dec(s string, p, sc int) *Lit {
	n, err := decimal128.FromString(s, int32(p), int32(sc))
	if err != nil {
		panic(err)
	}
	return &Lit{V: types.DecimalValue(p, sc, n)}
}

func ts(s string) *Lit {
	ms, ok := types.ParseTimestamp(s)
	if !ok {
		panic(s)
	}
	return &Lit{V: types.IntValue(types.TTimestamp, ms)}
}

func date(s string) *Lit {
	d, ok := types.ParseDate(s)
	if !ok {
		panic(s)
	}
	return &Lit{V: types.IntValue(types.TDate, int64(d))}
}

var (
	tB  = types.TBoolean
	tI  = types.TInt
	tL  = types.TBigInt
	tF  = types.TFloat
	tD  = types.TDouble
	tS  = types.TString
	tDt = types.TDate
	tTs = types.TTimestamp
)

func tDec(p, s int) types.Type { return types.DecimalOf(p, s) }
