package types

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestNestedEquality(t *testing.T) {
	mk := func(nn bool) Type {
		return RowOf([]Field{{"id", TBigInt}, {"tags", ArrayOf(TString.WithNotNull(nn))}, {"m", MapOf(TString, TInt)}})
	}
	a, b := mk(false), mk(false)
	if a != b {
		t.Fatalf("equal nested types differ under ==: %v, %v", a, b)
	}
	c := mk(true)
	if a == c {
		t.Fatalf("element nullability ignored by ==: %v", c)
	}
	if !Same(a, c) {
		t.Fatalf("Same should ignore nested nullability: %v, %v", a, c)
	}
	if Same(a, RowOf([]Field{{"ID", TBigInt}})) || Same(ArrayOf(TInt), ArrayOf(TBigInt)) || Same(ArrayOf(TInt), MapOf(TInt, TInt)) {
		t.Fatal("different nested types are Same")
	}
	if RowOf([]Field{{"a", TInt}}) == RowOf([]Field{{"b", TInt}}) {
		t.Fatal("field names ignored")
	}
	m := map[Type]int{a: 1}
	if m[b] != 1 {
		t.Fatal("equal nested types are different map keys")
	}
}

func TestNestedString(t *testing.T) {
	r := RowOf([]Field{{"id", TBigInt.WithNotNull(true)}, {"na`me", TString}, {"t", TTimestamp}})
	for _, c := range []struct {
		t    Type
		want string
	}{
		{r, "ROW<`id` BIGINT NOT NULL, `na``me` STRING, `t` TIMESTAMP(3)>"},
		{ArrayOf(TInt.WithNotNull(true)).WithNotNull(true), "ARRAY<INT NOT NULL> NOT NULL"},
		{MapOf(TString, ArrayOf(r)), "MAP<STRING, ARRAY<ROW<`id` BIGINT NOT NULL, `na``me` STRING, `t` TIMESTAMP(3)>>>"},
	} {
		if got := c.t.String(); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
	if r.FieldIndex("ID") != 0 || r.FieldIndex("t") != 2 || r.FieldIndex("x") != -1 {
		t.Error("FieldIndex")
	}
}

func TestNestedArrow(t *testing.T) {
	r := RowOf([]Field{{"id", TBigInt}, {"xs", ArrayOf(TString)}, {"m", MapOf(TString, TDouble)}})
	want := arrow.StructOf(
		arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "xs", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		arrow.Field{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64), Nullable: true},
	)
	if got := r.Arrow(); !arrow.TypeEqual(got, want) {
		t.Fatalf("got %s, want %s", got, want)
	}
}
