package expr

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

var (
	inner   = types.RowOf([]types.Field{{Name: "x", Type: types.TInt}})
	rowT    = types.RowOf([]types.Field{{Name: "id", Type: types.TBigInt}, {Name: "name", Type: types.TString}, {Name: "in", Type: inner}})
	arrT    = types.ArrayOf(types.TString)
	mapT    = types.MapOf(types.TString, types.TBigInt)
	nestSch = types.Schema{{Name: "r", Type: rowT}, {Name: "a", Type: arrT}, {Name: "m", Type: mapT}, {Name: "i", Type: types.TInt}}
)

// nestedBatch has 4 rows: a full one, one whose row and array and map are
// NULL, one with NULL fields and an empty array and map, one with a key
// twice. Row 1's struct children hold values under its NULL, which must
// not show.
func nestedBatch(t *testing.T, alloc memory.Allocator) arrow.RecordBatch {
	t.Helper()
	parse := func(dt arrow.DataType, js string) arrow.Array {
		a, _, err := array.FromJSON(alloc, dt, strings.NewReader(js))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	r := parse(rowT.Arrow(), `[{"id": 1, "name": "a", "in": {"x": 7}}, null, {"id": null, "name": null, "in": null}, {"id": 4, "name": "d", "in": {"x": null}}]`)
	// Put values under row 1's NULL: Arrow allows any.
	rd := r.Data()
	kids := rd.Children()
	ids := parse(arrow.PrimitiveTypes.Int64, `[1, 99, null, 4]`)
	d := array.NewData(rd.DataType(), rd.Len(), rd.Buffers(), []arrow.ArrayData{ids.Data(), kids[1], kids[2]}, rd.NullN(), 0)
	r.Release()
	ids.Release()
	r = array.MakeFromData(d)
	d.Release()
	a := parse(arrT.Arrow(), `[["x", "y"], null, [], ["z", null]]`)
	m := parse(mapT.Arrow(), `[[{"key": "k", "value": 1}], null, [], [{"key": "k", "value": 2}, {"key": "j", "value": null}, {"key": "k", "value": 3}]]`)
	i := parse(arrow.PrimitiveTypes.Int32, `[1, 1, 1, 2]`)
	rec := array.NewRecordBatch(nestSch.Arrow(), []arrow.Array{r, a, m, i}, 4)
	for _, x := range []arrow.Array{r, a, m, i} {
		x.Release()
	}
	return rec
}

func getf(x Expr, name string) Expr {
	return &Call{Fn: GetField, Args: []Expr{x, &Lit{V: types.StringValue(name)}}, T: x.Type().Fields()[x.Type().FieldIndex(name)].Type}
}

func TestNestedAccess(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	b := nestedBatch(t, alloc)
	defer b.Release()
	r := &Col{Index: 0, Name: "r", T: rowT}
	a := &Col{Index: 1, Name: "a", T: arrT}
	m := &Col{Index: 2, Name: "m", T: mapT}
	i := &Col{Index: 3, Name: "i", T: types.TInt}
	for _, c := range []struct {
		e    Expr
		want string
	}{
		{getf(r, "id"), `[1 (null) (null) 4]`},
		{getf(r, "name"), `["a" (null) (null) "d"]`},
		{getf(getf(r, "in"), "x"), `[7 (null) (null) (null)]`},
		{getf(r, "in"), `{[7 (null) (null) (null)]}`},
		{&Call{Fn: ElementAt, Args: []Expr{a, i}, T: types.TString}, `["x" (null) (null) (null)]`},
		{&Call{Fn: ElementAt, Args: []Expr{a, &Lit{V: types.IntValue(types.TInt, 2)}}, T: types.TString}, `["y" (null) (null) (null)]`},
		{&Call{Fn: ElementAt, Args: []Expr{m, &Lit{V: types.StringValue("k")}}, T: types.TBigInt}, `[1 (null) (null) 3]`},
		{&Call{Fn: ElementAt, Args: []Expr{m, &Lit{V: types.StringValue("j")}}, T: types.TBigInt}, `[(null) (null) (null) (null)]`},
		{&Call{Fn: Cardinality, Args: []Expr{a}, T: types.TInt}, `[2 (null) 0 2]`},
		{&Call{Fn: Cardinality, Args: []Expr{m}, T: types.TInt}, `[1 (null) 0 3]`},
		{&Call{Fn: IsNull, Args: []Expr{r}, T: types.TBoolean.WithNotNull(true)}, `[false true false false]`},
		{&Call{Fn: Add, Args: []Expr{getf(r, "id"), &Lit{V: types.IntValue(types.TBigInt, 1)}}, T: types.TBigInt}, `[2 (null) (null) 5]`},
	} {
		p, err := Compile(c.e, nestSch)
		if err != nil {
			t.Fatalf("%s: %v", c.e, err)
		}
		out, err := p.Eval(&Ctx{Alloc: alloc}, b)
		if err != nil {
			t.Fatalf("%s: %v", c.e, err)
		}
		got := out.String()
		if st, ok := out.(*array.Struct); ok {
			// Rows 1 and 2 are NULL; the others show their first field.
			got = "{["
			for k := 0; k < out.Len(); k++ {
				if k > 0 {
					got += " "
				}
				if out.IsNull(k) {
					got += "(null)"
				} else {
					one := array.NewSlice(st.Field(0), int64(k), int64(k)+1)
					got += strings.Trim(one.String(), "[]")
					one.Release()
				}
			}
			got += "]}"
		}
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.e, got, c.want)
		}
		out.Release()
	}
	if got := getf(getf(r, "in"), "x").String(); got != "$0:r.in.x" {
		t.Errorf("EXPLAIN renders %s", got)
	}
}

func TestNestedRefused(t *testing.T) {
	r := &Col{Index: 0, Name: "r", T: rowT}
	c := &Case{Whens: []When{{Cond: &Lit{V: types.BoolValue(true)}, Then: r}}, Else: &Lit{V: types.NullOf(rowT)}, T: rowT}
	if _, err := Compile(c, nestSch); err == nil || !strings.Contains(err.Error(), "not computed") {
		t.Fatalf("a CASE over ROWs compiled: %v", err)
	}
}

func TestTakeNested(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	b := nestedBatch(t, alloc)
	defer b.Release()
	out := Take(alloc, b, []int32{3, 1, 0})
	defer out.Release()
	want := []string{
		`{[4 (null) 1] ["d" (null) "a"] {[(null) (null) 7]}}`,
		`[["z" (null)] (null) ["x" "y"]]`,
		`[{["k" "j" "k"] [2 (null) 3]} (null) {["k"] [1]}]`,
	}
	for k, w := range want {
		if got := out.Column(k).String(); got != w {
			t.Errorf("column %d: got %s, want %s", k, got, w)
		}
	}
	if !out.Column(0).IsNull(1) || out.Column(0).IsNull(0) {
		t.Error("row validity not taken")
	}
}
