package connector

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

var partialSchema = types.Schema{{Name: "id", Type: types.TInt}, {Name: "s", Type: types.TString}}

// partialSource reads path with a short quiet period.
func partialSource(t *testing.T, path, format string) *fileSource {
	tab := fsTable(path, format, format+".ignore-parse-errors", "true")
	tab.Schema = partialSchema
	src := must(NewSource(tab)).(*fileSource)
	src.quiet = 300 * time.Millisecond
	return src
}

// TestPartialLastLineAppended: a file whose last line is still being
// written is read whole once the writer finishes the line: no bad row,
// nothing dropped or cut, and the offset never points into a line.
func TestPartialLastLineAppended(t *testing.T) {
	for _, c := range []struct{ format, head, tail, rest string }{
		{"csv", "1,a\n2,b\n", "3,unfin", "ished\n4,d\n"},
		{"json", `{"id":1,"s":"a"}` + "\n" + `{"id":2,"s":"b"}` + "\n", `{"id":3,"s":"unfin`, `ished"}` + "\n" + `{"id":4,"s":"d"}` + "\n"},
	} {
		t.Run(c.format, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "in."+c.format)
			if err := os.WriteFile(path, []byte(c.head+c.tail), 0o644); err != nil {
				t.Fatal(err)
			}
			src := partialSource(t, path, c.format)
			m := &exec.Metrics{}
			r := must(src.Open(exec.Split{ID: path}, exec.Offset{}, exec.ReadOptions{BatchSize: 10, Metrics: m}))
			defer r.Close()

			b := must(r.Next())
			if got := rowsOf(b); !slices.Equal(got, []string{"+I[1, a]", "+I[2, b]"}) {
				t.Fatalf("first batch %v", got)
			}
			b.Release()
			if off := r.Offset(); off.Pos != int64(len(c.head)) || off.Line != 2 {
				t.Fatalf("offset %+v inside the unfinished line", off)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				time.Sleep(100 * time.Millisecond)
				f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Error(err)
					return
				}
				f.WriteString(c.rest)
				f.Close()
			}()
			var rows []string
			for {
				b, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				rows = append(rows, rowsOf(b)...)
				b.Release()
			}
			<-done
			if !slices.Equal(rows, []string{"+I[3, unfinished]", "+I[4, d]"}) || m.BadRows.Load() != 0 {
				t.Fatalf("rows %v, %d bad", rows, m.BadRows.Load())
			}
		})
	}
}

// TestPartialLastLineSettles: a last line without a line break is a row
// once the file has stopped growing: at once for a file modified longer
// ago than the quiet period, after the quiet period for a fresh one.
func TestPartialLastLineSettles(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.csv")
	writeFile(t, old, "1,a\n2,b") // an hour old
	fresh := filepath.Join(dir, "fresh.csv")
	if err := os.WriteFile(fresh, []byte("1,a\n2,b"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path     string
		min, max time.Duration
	}{
		{old, 0, 200 * time.Millisecond},
		{fresh, 250 * time.Millisecond, 5 * time.Second},
	} {
		src := partialSource(t, c.path, "csv")
		start := time.Now()
		rows, off, err := readSplit(t, src, exec.Split{ID: c.path}, exec.Offset{}, exec.ReadOptions{BatchSize: 10})
		took := time.Since(start)
		if err != nil || !slices.Equal(rows, []string{"+I[1, a]", "+I[2, b]"}) || off.Pos != 7 {
			t.Errorf("%s: rows %v, offset %+v, %v", c.path, rows, off, err)
		}
		if took < c.min || took > c.max {
			t.Errorf("%s: read in %v, want between %v and %v", c.path, took, c.min, c.max)
		}
	}
}

// TestPartialLastLineShrinks: a file cut shorter while it is read fails
// the read instead of returning a part of a line.
func TestPartialLastLineShrinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(path, []byte("1,a\n2,bbbb"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := partialSource(t, path, "csv")
	r := must(src.Open(exec.Split{ID: path}, exec.Offset{}, exec.ReadOptions{BatchSize: 10}))
	defer r.Close()
	b := must(r.Next())
	b.Release()
	if err := os.Truncate(path, 6); err != nil {
		t.Fatal(err)
	}
	var err error
	for err == nil {
		b, err = r.Next()
		if err == nil {
			if b.NumRows() > 0 {
				t.Fatalf("rows after the file shrank: %v", rowsOf(b))
			}
			b.Release()
		}
	}
	if !strings.Contains(err.Error(), "shrank") {
		t.Fatalf("got %v", err)
	}
}

// TestPartialLastLinePipe: a named pipe's end is final, so its last line
// without a line break is read at once.
func TestPartialLastLinePipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip(err)
	}
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString("1,a\n2,b")
		f.Close()
	}()
	src := partialSource(t, path, "csv")
	start := time.Now()
	rows, _, err := readSplit(t, src, exec.Split{ID: path}, exec.Offset{}, exec.ReadOptions{BatchSize: 10})
	if err != nil || !slices.Equal(rows, []string{"+I[1, a]", "+I[2, b]"}) {
		t.Fatalf("rows %v, %v", rows, err)
	}
	if took := time.Since(start); took > 250*time.Millisecond {
		t.Errorf("waited %v for a pipe", took)
	}
}
