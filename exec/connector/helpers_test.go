package connector

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// makeBatch builds a batch from rows of Go values (nil is NULL); tests only.
func makeBatch(t testing.TB, s types.Schema, rows [][]any) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, s.Arrow())
	defer b.Release()
	for _, row := range rows {
		for j, v := range row {
			fb := b.Field(j)
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch fb := fb.(type) {
			case *array.BooleanBuilder:
				fb.Append(v.(bool))
			case *array.Int32Builder:
				fb.Append(int32(v.(int)))
			case *array.Int64Builder:
				fb.Append(int64(v.(int)))
			case *array.Float32Builder:
				fb.Append(float32(v.(float64)))
			case *array.Float64Builder:
				fb.Append(v.(float64))
			case *array.Decimal128Builder:
				ty := s[j].Type
				n, err := types.ParseDecimal(v.(string), ty.Precision, ty.Scale)
				if err != nil {
					t.Fatal(err)
				}
				fb.Append(n)
			case *array.StringBuilder:
				fb.Append(v.(string))
			case *array.Date32Builder:
				d, ok := types.ParseDate(v.(string))
				if !ok {
					t.Fatalf("bad date %q", v)
				}
				fb.Append(arrow.Date32(d))
			case *array.TimestampBuilder:
				ms, ok := types.ParseTimestamp(v.(string))
				if !ok {
					t.Fatalf("bad timestamp %q", v)
				}
				fb.Append(arrow.Timestamp(ms))
			default:
				t.Fatalf("unsupported builder %T", fb)
			}
		}
	}
	return b.NewRecordBatch()
}

// rowsOf renders a batch's rows with FormatRow.
func rowsOf(b arrow.RecordBatch) []string {
	var out []string
	for i := 0; i < int(b.NumRows()); i++ {
		out = append(out, string(FormatRow(nil, b, i)))
	}
	return out
}

// readSplit reads a whole split, returning its rows and its final offset.
func readSplit(t testing.TB, src exec.Source, sp exec.Split, off exec.Offset, ro exec.ReadOptions) ([]string, exec.Offset, error) {
	t.Helper()
	r, err := src.Open(sp, off, ro)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows []string
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows, r.Offset(), nil
		}
		if err != nil {
			return rows, r.Offset(), err
		}
		checkSchema(t, src.Schema(), b)
		rows = append(rows, rowsOf(b)...)
		b.Release()
	}
}

// readAll reads every split of a source in split order.
func readAll(t testing.TB, src exec.Source, ro exec.ReadOptions) ([]string, error) {
	t.Helper()
	splits, err := src.Splits()
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, sp := range splits {
		rows, _, err := readSplit(t, src, sp, exec.Offset{}, ro)
		all = append(all, rows...)
		if err != nil {
			return all, err
		}
	}
	return all, nil
}

func checkSchema(t testing.TB, s types.Schema, b arrow.RecordBatch) {
	t.Helper()
	if !b.Schema().Equal(s.Arrow()) {
		t.Fatalf("batch schema %v, want %v", b.Schema(), s.Arrow())
	}
	for _, c := range b.Columns() {
		if c.Len() != int(b.NumRows()) {
			t.Fatalf("column of %d rows in a batch of %d", c.Len(), b.NumRows())
		}
		if s, ok := c.(*array.String); ok {
			if err := s.ValidateFull(); err != nil {
				t.Fatalf("invalid string array: %v", err)
			}
		}
	}
}

// writeFile writes a finished file: its modification time is set an hour
// back, so that a last line without a line break is read at once rather
// than after the quiet period of a file that may still be written.
func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, past, past); err != nil {
		t.Fatal(err)
	}
}

// listDir returns the names of the regular files in dir, sorted.
func listDir(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func fsTable(path, format string, kv ...string) Table {
	o := map[string]string{"connector": "filesystem", "path": path, "format": format}
	for i := 0; i+1 < len(kv); i += 2 {
		o[kv[i]] = kv[i+1]
	}
	return Table{Name: "t", Options: o}
}

// must returns v, panicking (and so failing the test) on an error.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }
