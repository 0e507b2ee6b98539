package connector

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// TestRangeReadersReused: a range's reader takes the read buffer a closed
// one gave back instead of allocating its own, and what the buffer held
// before never shows: every range, read after others, returns its lines.
func TestRangeReadersReused(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	path := filepath.Join(t.TempDir(), "big.csv")
	want := rangeFile(t, r, path, 150_000) // about 4 MB: 4 ranges of 1 MB
	tab := fsTable(path, "csv", "source.split-size", "1MB")
	tab.Schema = rangeSchema
	src := must(NewSource(tab))
	splits := must(src.Splits())
	if len(splits) < 3 {
		t.Fatalf("%d splits, want several", len(splits))
	}
	for pass := range 2 {
		var got []string
		for _, sp := range splits {
			rows, _, err := readSplit(t, src, sp, exec.Offset{}, exec.ReadOptions{BatchSize: 4096})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, rows...)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("pass %d: %d rows read, want %d; first difference at %d", pass, len(got), len(want), firstDiff(got, want))
		}
	}

	// Opening and closing ranges allocates no read buffer each: a fresh
	// one would be rangeBuffer bytes per open.
	if raceEnabled {
		return
	}
	const opens = 40
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range opens {
		rd := must(src.Open(splits[i%len(splits)], exec.Offset{}, exec.ReadOptions{BatchSize: 1}))
		if b, err := rd.Next(); err == nil {
			b.Release()
		}
		rd.Close()
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > opens*rangeBuffer/4 {
		t.Fatalf("%d opens of a range allocated %d bytes, want under %d (a read buffer each would be %d)", opens, n, opens*rangeBuffer/4, opens*rangeBuffer)
	}
}

// TestFailedOpenReturnsReader: an Open that fails after taking a pooled
// read buffer (a partitioned table's file outside any partition
// directory) gives the buffer back, so failing opens allocate no buffer
// each.
func TestFailedOpenReturnsReader(t *testing.T) {
	dir := t.TempDir()
	line := []byte("1234567890,abcdefghij\n")
	body := bytes.Repeat(line, fileBuffer/len(line)+1) // a whole file's buffer
	if err := os.WriteFile(filepath.Join(dir, "stray.csv"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	tab := fsTable(dir, "csv")
	tab.Schema = types.Schema{{Name: "a", Type: types.TBigInt}, {Name: "s", Type: types.TString}, {Name: "p", Type: types.TString}}
	tab.Partitions = []string{"p"}
	src := must(NewSource(tab))
	splits := must(src.Splits())
	if len(splits) != 1 {
		t.Fatalf("%d splits, want the one file", len(splits))
	}
	if _, err := src.Open(splits[0], exec.Offset{}, exec.ReadOptions{}); err == nil || !strings.Contains(err.Error(), "not in a partition directory") {
		t.Fatalf("Open of a file outside the partition directories: %v", err)
	}
	if raceEnabled {
		return
	}
	const opens = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range opens {
		if _, err := src.Open(splits[0], exec.Offset{}, exec.ReadOptions{}); err == nil {
			t.Fatal("Open succeeded")
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > opens*fileBuffer/4 {
		t.Fatalf("%d failed opens allocated %d bytes, want under %d (a read buffer each would be %d)", opens, n, opens*fileBuffer/4, opens*fileBuffer)
	}
}
