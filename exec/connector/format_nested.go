package connector

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Nested values as text. The print sink shows them as Flink's print
// connector does (Row.toString): a ROW as +I[f1, f2], an ARRAY as
// [e1, e2], a MAP as {k1=v1, k2=v2}, NULL as null, and the values in them
// as at the top level. JSON writes objects and arrays (appendJSONNested).

// appendNested appends the text of the non-null nested value a[i].
func appendNested(dst []byte, a arrow.Array, i int) []byte {
	elem := func(dst []byte, a arrow.Array, j int) []byte {
		if a.IsNull(j) {
			return append(dst, "null"...)
		}
		return appendValue(dst, a, j, false)
	}
	switch a := a.(type) {
	case *array.Struct:
		dst = append(dst, "+I["...)
		for k := 0; k < a.NumField(); k++ {
			if k > 0 {
				dst = append(dst, ", "...)
			}
			dst = elem(dst, a.Field(k), i)
		}
		return append(dst, ']')
	case *array.Map:
		lo, hi := a.ValueOffsets(i)
		dst = append(dst, '{')
		for j := lo; j < hi; j++ {
			if j > lo {
				dst = append(dst, ", "...)
			}
			dst = elem(dst, a.Keys(), int(j))
			dst = append(dst, '=')
			dst = elem(dst, a.Items(), int(j))
		}
		return append(dst, '}')
	case *array.List:
		lo, hi := a.ValueOffsets(i)
		dst = append(dst, '[')
		for j := lo; j < hi; j++ {
			if j > lo {
				dst = append(dst, ", "...)
			}
			dst = elem(dst, a.ListValues(), int(j))
		}
		return append(dst, ']')
	}
	return append(dst, a.ValueStr(i)...)
}

// appendJSONNested appends the non-null nested value a[i] as a JSON
// object (a ROW, by field name, or a MAP, its keys as strings) or array.
func appendJSONNested(dst []byte, a arrow.Array, i int) []byte {
	switch a := a.(type) {
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		for k := 0; k < a.NumField(); k++ {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, st.Field(k).Name)
			dst = append(dst, ':')
			dst = appendJSON(dst, a.Field(k), i)
		}
		return append(dst, '}')
	case *array.Map:
		lo, hi := a.ValueOffsets(i)
		dst = append(dst, '{')
		for j := lo; j < hi; j++ {
			if j > lo {
				dst = append(dst, ',')
			}
			if s, ok := a.Keys().(*array.String); ok {
				dst = appendJSONString(dst, s.Value(int(j)))
			} else {
				dst = appendJSONString(dst, string(appendValue(nil, a.Keys(), int(j), true)))
			}
			dst = append(dst, ':')
			dst = appendJSON(dst, a.Items(), int(j))
		}
		return append(dst, '}')
	case *array.List:
		lo, hi := a.ValueOffsets(i)
		dst = append(dst, '[')
		for j := lo; j < hi; j++ {
			if j > lo {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, a.ListValues(), int(j))
		}
		return append(dst, ']')
	}
	return appendJSONString(dst, a.ValueStr(i))
}
