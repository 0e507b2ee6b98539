package connector

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/exec"
)

// TestHeaderAfterComments: with csv.allow-comments, the header that
// csv.ignore-first-line skips is the first line that is not a comment or
// empty, as in Flink (Jackson skips those before the first data row), and
// a checkpoint taken before the header is complete resumes by skipping it,
// not by reading it as a row.
func TestHeaderAfterComments(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "h.csv")
	writeFile(t, path, "# exported today\n\nn,s\n1,a\n2,b\n")
	tab := fsTable(path, "csv", "csv.ignore-first-line", "true", "csv.allow-comments", "true")
	tab.Schema = rangeSchema
	src := must(NewSource(tab))
	got, _, err := readSplit(t, src, must(src.Splits())[0], exec.Offset{}, exec.ReadOptions{BatchSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(got, ";"); s != "+I[1, a];+I[2, b]" {
		t.Fatalf("got %q", s)
	}

	// The header is still being written: the reader has passed the
	// comment only.
	grow := filepath.Join(dir, "g.csv")
	writeFile(t, grow, "# exported today\nn,")
	if err := os.Chtimes(grow, time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	tab = fsTable(grow, "csv", "csv.ignore-first-line", "true", "csv.allow-comments", "true")
	tab.Schema = rangeSchema
	src = must(NewSource(tab))
	src.(*fileSource).quiet = time.Hour
	sp := must(src.Splits())[0]
	rd := must(src.Open(sp, exec.Offset{}, exec.ReadOptions{BatchSize: 10}))
	if b := must(rd.Next()); b.NumRows() != 0 {
		t.Fatalf("%d rows before the header ended", b.NumRows())
	}
	off := rd.Offset()
	rd.Close()
	if off != (exec.Offset{}) {
		t.Fatalf("offset %+v before the header, want the zero offset", off)
	}
	f := must(os.OpenFile(grow, os.O_APPEND|os.O_WRONLY, 0))
	f.WriteString("s\n3,c\n")
	f.Close()
	src.(*fileSource).quiet = 0
	got, _, err = readSplit(t, src, sp, off, exec.ReadOptions{BatchSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(got, ";"); s != "+I[3, c]" {
		t.Fatalf("resumed: got %q, want the row after the header", s)
	}
}
