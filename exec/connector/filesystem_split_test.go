package connector

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

var rangeSchema = types.Schema{{Name: "n", Type: types.TInt}, {Name: "s", Type: types.TString}}

// rangeFile writes rows n,<padding> with random line lengths, some lines
// blank and CRLF, and returns the rows in order.
func rangeFile(t *testing.T, r *rand.Rand, path string, rows int) []string {
	var sb strings.Builder
	var want []string
	for i := range rows {
		pad := strings.Repeat("x", r.IntN(40))
		if r.IntN(10) == 0 {
			sb.WriteString("\n")
		}
		eol := "\n"
		if r.IntN(5) == 0 {
			eol = "\r\n"
		}
		fmt.Fprintf(&sb, "%d,%s%s", i, pad, eol)
		want = append(want, fmt.Sprintf("+I[%d, %s]", i, pad))
	}
	writeFile(t, path, sb.String())
	return want
}

// TestRanges: whatever the split size, the ranges of a file read every
// line once, in order, and each range resumes from any offset it reported.
func TestRanges(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	dir := t.TempDir()
	path := filepath.Join(dir, "big.csv")
	want := rangeFile(t, r, path, 600)
	fi := must(os.Stat(path))
	for _, size := range []int64{1, 5, 64, 100, 1000, 4096, fi.Size() - 1, fi.Size(), 1 << 30} {
		tab := fsTable(path, "csv", "source.split-size", fmt.Sprint(size))
		tab.Schema = rangeSchema
		src := must(NewSource(tab))
		splits := must(src.Splits())
		if wantN := max(1, (fi.Size()+size-1)/size); int64(len(splits)) != wantN {
			t.Fatalf("size %d: %d splits, want %d", size, len(splits), wantN)
		}
		if len(splits) == 1 && splits[0].ID != path {
			t.Fatalf("one range: split ID %q, want the path", splits[0].ID)
		}
		var got []string
		for _, sp := range splits {
			// Read a batch, then resume from the offset it reported.
			rd := must(src.Open(sp, exec.Offset{}, exec.ReadOptions{BatchSize: 5}))
			b, err := rd.Next()
			if err == nil {
				got = append(got, rowsOf(b)...)
				b.Release()
			}
			off := rd.Offset()
			rd.Close()
			rest, _, err := readSplit(t, src, sp, off, exec.ReadOptions{BatchSize: 64})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, rest...)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("size %d: %d rows read, want %d; first difference at %d", size, len(got), len(want), firstDiff(got, want))
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestRangeErrorLine: a bad row in a range that does not start the file
// is reported with its line number in the file.
func TestRangeErrorLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.csv")
	var sb strings.Builder
	for i := range 500 {
		fmt.Fprintf(&sb, "%d,row\n", i)
	}
	sb.WriteString("oops,row\n")
	writeFile(t, path, sb.String())
	tab := fsTable(path, "csv", "source.split-size", "1kb")
	tab.Schema = rangeSchema
	_, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{BatchSize: 7})
	if err == nil || !strings.HasPrefix(err.Error(), path+":501: column 'n'") {
		t.Fatalf("got %v, want an error on line 501", err)
	}
}

// TestRangeOfGrowingFile: a range whose start falls in a last line still
// being written waits for the line to end before it takes any line, and
// reads the lines appended after it.
func TestRangeOfGrowingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "grow.csv")
	first := "1," + strings.Repeat("a", 100) + "\n" + "2," + strings.Repeat("b", 50)
	writeFile(t, path, first)
	if err := os.Chtimes(path, time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	tab := fsTable(path, "csv", "source.split-size", "128")
	tab.Schema = rangeSchema
	src := must(NewSource(tab))
	src.(*fileSource).quiet = time.Hour
	splits := must(src.Splits())
	if len(splits) != 2 || splits[1].Start != 128 {
		t.Fatalf("splits %+v", splits)
	}
	rd := must(src.Open(splits[1], exec.Offset{}, exec.ReadOptions{BatchSize: 10}))
	defer rd.Close()
	if b := must(rd.Next()); b.NumRows() != 0 {
		t.Fatalf("%d rows before the line ended", b.NumRows())
	}
	if off := rd.Offset(); off != (exec.Offset{}) {
		t.Fatalf("offset %+v while skipping, want the zero offset", off)
	}
	f := must(os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0))
	f.WriteString("bb\n3,c\n")
	f.Close()
	b := must(rd.Next())
	if got := strings.Join(rowsOf(b), ";"); got != "+I[3, c]" {
		t.Fatalf("got %q, want the appended line only", got)
	}
	b.Release()
}

// TestPeekBuffer: a reader that peeks at a split's first rows
// (ReadOptions.Peek) reads them through a small buffer, whether the split
// is a whole file or a range, and returns the same rows as a full read;
// a whole file is read through a buffer no larger than the file.
func TestPeekBuffer(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	path := filepath.Join(dir, "f.csv")
	want := rangeFile(t, r, path, 2000)
	for _, size := range []int64{1 << 30, 8 << 10} {
		tab := fsTable(path, "csv", "source.split-size", fmt.Sprint(size))
		tab.Schema = rangeSchema
		src := must(NewSource(tab))
		sp := must(src.Splits())[0]
		for _, peek := range []bool{false, true} {
			rd := must(src.Open(sp, exec.Offset{}, exec.ReadOptions{BatchSize: 16, Peek: peek}))
			n := rd.(*fileReader).r.Size()
			whole := int(min(1<<20, must(os.Stat(path)).Size())) // a whole file's buffer fits the file
			if peek && n > peekBuffer || !peek && size > 1<<20 && n != whole {
				t.Errorf("split size %d, peek %v: a buffer of %d bytes", size, peek, n)
			}
			b := must(rd.Next())
			if got := rowsOf(b); !slices.Equal(got, want[:len(got)]) || len(got) != 16 {
				t.Errorf("split size %d, peek %v: first rows %v", size, peek, got)
			}
			b.Release()
			rd.Close()
		}
	}
}
