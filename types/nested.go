package types

import (
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// Nest is what a nested type contains: a ROW's fields, an ARRAY's element,
// a MAP's key and value. It is interned: RowOf, ArrayOf and MapOf return
// the one *Nest of each distinct nested type, so that Type stays a
// comparable value and == on two Types compares their contents, however
// deep. A Nest is never modified once made.
//
// Nullability is kept per field, element, key and value (ROW<a INT NOT
// NULL>). Time attributes are not: a field is never a rowtime.
type Nest struct {
	Fields []Field // ROW
	Elem   Type    // ARRAY's element, MAP's value
	Key    Type    // MAP's key
}

var interned = struct {
	sync.Mutex
	m map[string]*Nest
}{m: map[string]*Nest{}}

// intern returns the one *Nest equal to n. Its key spells n's contents:
// the kinds and parameters of its types, and the interned pointers of
// the nested types inside them, which stand for their own contents.
func intern(n Nest) *Nest {
	var b strings.Builder
	sig := func(t Type) {
		fmt.Fprintf(&b, "%d/%d/%d/%t/%p;", t.Kind, t.Precision, t.Scale, t.NotNull, t.Nest)
	}
	sig(n.Key)
	sig(n.Elem)
	for _, f := range n.Fields {
		fmt.Fprintf(&b, "%d:%s", len(f.Name), f.Name)
		sig(f.Type)
	}
	key := b.String()
	interned.Lock()
	defer interned.Unlock()
	if p, ok := interned.m[key]; ok {
		return p
	}
	p := &n
	interned.m[key] = p
	return p
}

// RowOf returns ROW<fields...>, nullable. Field names must be distinct,
// which the planner checks where a user writes them.
func RowOf(fields []Field) Type {
	fs := make([]Field, len(fields))
	for i, f := range fields {
		fs[i] = Field{Name: f.Name, Type: f.Type.Plain()}
	}
	return Type{Kind: Row, Nest: intern(Nest{Fields: fs})}
}

// ArrayOf returns ARRAY<elem>, nullable.
func ArrayOf(elem Type) Type {
	return Type{Kind: Array, Nest: intern(Nest{Elem: elem.Plain()})}
}

// MapOf returns MAP<key, value>, nullable.
func MapOf(key, value Type) Type {
	return Type{Kind: Map, Nest: intern(Nest{Key: key.Plain(), Elem: value.Plain()})}
}

// IsNested reports whether t is a ROW, ARRAY or MAP.
func (t Type) IsNested() bool { return t.Nest != nil }

// Fields returns a ROW's fields (nil for other types). The slice is
// shared: callers must not modify it.
func (t Type) Fields() []Field {
	if t.Kind != Row || t.Nest == nil {
		return nil
	}
	return t.Nest.Fields
}

// Elem returns an ARRAY's element type or a MAP's value type.
func (t Type) Elem() Type {
	if t.Nest == nil {
		return Type{}
	}
	return t.Nest.Elem
}

// Key returns a MAP's key type.
func (t Type) Key() Type {
	if t.Nest == nil {
		return Type{}
	}
	return t.Nest.Key
}

// FieldIndex returns the position of a ROW's field named name, matched
// as Schema.Index matches columns, or -1.
func (t Type) FieldIndex(name string) int { return Schema(t.Fields()).Index(name) }

// HasNested reports whether a column of s is a ROW, ARRAY or MAP.
func HasNested(s Schema) bool {
	for _, f := range s {
		if f.Type.IsNested() {
			return true
		}
	}
	return false
}

// sameNested is Same for nested types: the same kind and shape, field
// names equal, and the parts Same, whatever their nullability.
func sameNested(a, b Type) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Row:
		fa, fb := a.Fields(), b.Fields()
		if len(fa) != len(fb) {
			return false
		}
		for i := range fa {
			if fa[i].Name != fb[i].Name || !Same(fa[i].Type, fb[i].Type) {
				return false
			}
		}
		return true
	case Map:
		if !Same(a.Key(), b.Key()) {
			return false
		}
	}
	return Same(a.Elem(), b.Elem())
}

// nestedString renders a nested type as Flink prints it in DESCRIBE:
// ROW<`id` BIGINT, `name` STRING>, ARRAY<INT NOT NULL>, MAP<STRING, INT>.
func (t Type) nestedString() string {
	var b strings.Builder
	switch t.Kind {
	case Row:
		b.WriteString("ROW<")
		for i, f := range t.Fields() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("`" + strings.ReplaceAll(f.Name, "`", "``") + "` " + f.Type.String())
		}
	case Array:
		b.WriteString("ARRAY<" + t.Elem().String())
	case Map:
		b.WriteString("MAP<" + t.Key().String() + ", " + t.Elem().String())
	}
	b.WriteString(">")
	return b.String()
}

// nestedArrow is the Arrow type of a nested type: a struct of the fields,
// a list of the element, a map of key and value. Every field and element
// is nullable in Arrow terms, as a Schema's columns are (a map's keys are
// never NULL: MAP keys in SQL may not be either, see the planner).
func (t Type) nestedArrow() arrow.DataType {
	switch t.Kind {
	case Row:
		fs := make([]arrow.Field, len(t.Fields()))
		for i, f := range t.Fields() {
			fs[i] = arrow.Field{Name: f.Name, Type: f.Type.Arrow(), Nullable: true}
		}
		return arrow.StructOf(fs...)
	case Array:
		return arrow.ListOf(t.Elem().Arrow())
	}
	return arrow.MapOf(t.Key().Arrow(), t.Elem().Arrow())
}
