package bench

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
)

// TestCaptureAppliesChangelog: the capturing sink's digest of a changelog
// is its final table's: a retraction takes its row back, and columns
// left out by cols are not digested.
func TestCaptureAppliesChangelog(t *testing.T) {
	batch := func(ks []int64, vs []int64, kinds []exec.RowKind) arrow.RecordBatch {
		schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).AppendValues(ks, nil)
		b.Field(1).(*array.Int64Builder).AppendValues(vs, nil)
		return exec.WithKinds(b.NewRecordBatch(), kinds)
	}
	digestOf := func(cols []int, bs ...arrow.RecordBatch) digest {
		s := &captureSink{cols: cols}
		w, err := s.Open(nil, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			if err := w.Write(b); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return s.result()
	}
	// (1, 10) is inserted and updated to (1, 11); (2, 20) inserted and
	// deleted: the final table is (1, 11).
	changes := []arrow.RecordBatch{
		batch([]int64{1, 2}, []int64{10, 20}, nil),
		batch([]int64{1, 1, 2}, []int64{10, 11, 20}, []exec.RowKind{exec.UpdateBefore, exec.UpdateAfter, exec.Delete}),
	}
	final := batch([]int64{1}, []int64{11}, nil)
	if got, want := digestOf(nil, changes...), digestOf(nil, final); got != want || got.rows != 1 {
		t.Errorf("changelog %v, final table %v", got, want)
	}
	if got, want := digestOf([]int{0}, batch([]int64{1}, []int64{11}, nil)), digestOf([]int{0}, batch([]int64{1}, []int64{99}, nil)); got != want {
		t.Errorf("column 1 is digested: %v and %v", got, want)
	}
}
