package groupagg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// copier appends row i of a to b, both of one result type: a change's
// value goes from the segment's results to the output, with the type
// dispatch done once per column.
type copier func(b array.Builder, a arrow.Array, i int)

// copierOf returns the copier of type t, nil for a type no aggregate
// results in.
func copierOf(t arrow.DataType) copier {
	switch t.ID() {
	case arrow.INT64:
		return typed(func(b *array.Int64Builder, a *array.Int64, i int) { b.Append(a.Value(i)) })
	case arrow.INT32:
		return typed(func(b *array.Int32Builder, a *array.Int32, i int) { b.Append(a.Value(i)) })
	case arrow.FLOAT64:
		return typed(func(b *array.Float64Builder, a *array.Float64, i int) { b.Append(a.Value(i)) })
	case arrow.FLOAT32:
		return typed(func(b *array.Float32Builder, a *array.Float32, i int) { b.Append(a.Value(i)) })
	case arrow.STRING:
		return typed(func(b *array.StringBuilder, a *array.String, i int) { b.Append(a.Value(i)) })
	case arrow.BOOL:
		return typed(func(b *array.BooleanBuilder, a *array.Boolean, i int) { b.Append(a.Value(i)) })
	case arrow.DECIMAL128:
		return typed(func(b *array.Decimal128Builder, a *array.Decimal128, i int) { b.Append(a.Value(i)) })
	case arrow.TIMESTAMP:
		return typed(func(b *array.TimestampBuilder, a *array.Timestamp, i int) { b.Append(a.Value(i)) })
	case arrow.DATE32:
		return typed(func(b *array.Date32Builder, a *array.Date32, i int) { b.Append(a.Value(i)) })
	}
	return nil
}

func typed[B array.Builder, A arrow.Array](f func(b B, a A, i int)) copier {
	return func(b array.Builder, a arrow.Array, i int) {
		if a.IsNull(i) {
			b.AppendNull()
			return
		}
		f(b.(B), a.(A), i)
	}
}
