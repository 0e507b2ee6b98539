package connector

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Nested values as text. The print sink shows them as Flink's print
// connector does (Row.toString): a ROW as +I[f1, f2], an ARRAY as
// [e1, e2], a MAP as {k1=v1, k2=v2}, NULL as null, and the values in them
// as at the top level. JSON writes objects (a ROW by field name, a MAP by
// its keys as strings) and arrays.

// nestedStyle is how one text form spells nested values: JSON's, or the
// print sink's.
type nestedStyle struct {
	row, sep, kv string // a ROW's opening, the separator, a MAP entry's
	json         bool
}

var (
	printStyle = nestedStyle{row: "+I[", sep: ", ", kv: "="}
	jsonStyle  = nestedStyle{row: "{", sep: ",", kv: ":", json: true}
)

// appendNested appends the print text of the non-null nested value a[i].
func appendNested(dst []byte, a arrow.Array, i int) []byte {
	return printStyle.append(dst, a, i)
}

// appendJSONNested appends the non-null nested value a[i] as JSON.
func appendJSONNested(dst []byte, a arrow.Array, i int) []byte {
	return jsonStyle.append(dst, a, i)
}

// elem appends a[i], NULL or not, nested or not.
func (s *nestedStyle) elem(dst []byte, a arrow.Array, i int) []byte {
	switch {
	case s.json:
		return appendJSON(dst, a, i)
	case a.IsNull(i):
		return append(dst, "null"...)
	}
	return appendValue(dst, a, i, false)
}

// key appends a MAP's key: in JSON, as a string.
func (s *nestedStyle) key(dst []byte, a arrow.Array, i int) []byte {
	if !s.json {
		return s.elem(dst, a, i)
	}
	if str, ok := a.(*array.String); ok {
		return appendJSONString(dst, str.Value(i))
	}
	return appendJSONString(dst, string(appendValue(nil, a, i, true)))
}

func (s *nestedStyle) append(dst []byte, a arrow.Array, i int) []byte {
	switch a := a.(type) {
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, s.row...)
		for k := 0; k < a.NumField(); k++ {
			if k > 0 {
				dst = append(dst, s.sep...)
			}
			if s.json {
				dst = appendJSONString(dst, st.Field(k).Name)
				dst = append(dst, ':')
			}
			dst = s.elem(dst, a.Field(k), i)
		}
		if s.json {
			return append(dst, '}')
		}
		return append(dst, ']')
	case *array.Map:
		lo, hi := a.ValueOffsets(i)
		dst = append(dst, '{')
		for j := lo; j < hi; j++ {
			if j > lo {
				dst = append(dst, s.sep...)
			}
			dst = s.key(dst, a.Keys(), int(j))
			dst = append(dst, s.kv...)
			dst = s.elem(dst, a.Items(), int(j))
		}
		return append(dst, '}')
	case *array.List:
		lo, hi := a.ValueOffsets(i)
		dst = append(dst, '[')
		for j := lo; j < hi; j++ {
			if j > lo {
				dst = append(dst, s.sep...)
			}
			dst = s.elem(dst, a.ListValues(), int(j))
		}
		return append(dst, ']')
	}
	return s.elem(dst, a, i)
}
