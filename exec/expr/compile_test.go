package expr

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

func TestCompileRejects(t *testing.T) {
	s := types.Schema{{Name: "i", Type: tI}, {Name: "s", Type: tS}, {Name: "d", Type: tDec(5, 2)}}
	i, st := c(0, tI), c(1, tS)
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{c(5, tI), "out of range"},
		{c(0, tL), "column is INT"},
		{call(Add, tI, i), "takes 2 arguments"},
		{call(Add, tL, i, i), "is INT, the result BIGINT"},
		{call(Add, tS, st, st), "not defined on STRING"},
		{call(Eq, tB, i, st), "cannot compare"},
		{call(Eq, tI, i, i), "must be BOOLEAN"},
		{call(And, tB, i, i), "unexpected argument type"},
		{call(Like, tB, st, i), "unexpected argument type"},
		{call(Like, tB, st, str("a"), str("ab")), "one-character"},
		{call(Extract, tL, st, i), "unit must be a string literal"},
		{call(Round, tD, c(0, tI), c(0, tI)), "integer literal"},
		{call(Substring, tS, st), "takes 2 to 3 arguments"},
		{call(Upper, tI, st), "cannot return INT"},
		{&Cast{X: c(2, tDec(5, 2)), T: tDt}, "cannot cast"},
		{&Case{Whens: []When{{Cond: boolean(true), Then: st}}, Else: i, T: tS}, "branch"},
		{call(Fn(200), tI), "unknown function"},
		{call(Add, tDec(5, 2), c(2, tDec(5, 2)), i), "needs DECIMAL"},
		{call(DateFormat, tS, c(0, tI), str("yyyy")), "unexpected argument type"},
	} {
		_, err := Compile(tc.e, s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile(%s) = %v, want an error with %q", tc.e, err, tc.want)
		}
	}
}

func TestEvalChecksTheBatch(t *testing.T) {
	p, err := Compile(call(Add, tI, c(0, tI), i32(1)), types.Schema{{Name: "i", Type: tI}})
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rb := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	rb.Field(0).(*array.Int64Builder).Append(1)
	b := rb.NewRecordBatch()
	rb.Release()
	defer b.Release()
	if _, err := p.Eval(nil, b); err == nil || !strings.Contains(err.Error(), "expected int32") {
		t.Errorf("Eval over a BIGINT column: %v", err)
	}
}

// The root writes straight into the result, which the next batch must not
// overwrite.
func TestResultsOutliveTheProgram(t *testing.T) {
	cs := cols(column{tL, []any{int64(1), int64(2)}})
	p, err := Compile(call(Add, tL, c(0, tL), i64(10)), schemaOf(cs))
	if err != nil {
		t.Fatal(err)
	}
	alloc := memory.NewGoAllocator()
	b := makeBatch(t, alloc, cs)
	defer b.Release()
	first, _ := p.Eval(nil, b)
	second, _ := p.Eval(nil, b)
	if first.(*array.Int64).Value(0) != 11 || second.(*array.Int64).Value(1) != 12 {
		t.Errorf("results %v %v", first, second)
	}
	if &first.(*array.Int64).Int64Values()[0] == &second.(*array.Int64).Int64Values()[0] {
		t.Error("two results share memory")
	}
	first.Release()
	second.Release()
}

func TestConstantsOfEveryType(t *testing.T) {
	cs := cols(column{tI, []any{int32(1), int32(2), nil}})
	check(t, null(types.TNull), cs, nil, nil, nil)
	check(t, i64(5), cs, int64(5), int64(5), int64(5))
	check(t, f64(0.5), cs, 0.5, 0.5, 0.5)
	check(t, dec("-1.25", 5, 2), cs, "-1.25", "-1.25", "-1.25")
	check(t, str("é"), cs, "é", "é", "é")
	check(t, date("2024-01-02"), cs, "2024-01-02", "2024-01-02", "2024-01-02")
	check(t, boolean(true), cs, true, true, true)
	check(t, null(tS), cs, nil, nil, nil)
	check(t, call(Add, tI, i32(1), i32(2)), cs, int32(3), int32(3), int32(3))
	check(t, call(Add, tI, null(types.TNull), c(0, tI)), cs, nil, nil, nil)
	if _, err := Compile(&Cast{T: tI}, schemaOf(cs)); err == nil {
		t.Error("CAST of nil compiled")
	}
}
