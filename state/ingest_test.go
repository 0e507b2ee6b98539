package state

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

func TestSortedIngest(t *testing.T) {
	fs := vfs.NewMem()
	s, err := OpenIngesting(fs, "st") // a window aggregate's store, the writer of Sorteds
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	b := s.NewBatch()
	b.Set("op", 3, "g", []byte("old"), []byte("1"))
	b.Set("op", 3, "g", []byte("gone"), []byte("x"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	w := s.NewSorted()
	for i := 9; i >= 0; i-- { // out of order
		w.Set("op", uint16(i%4), "g", []byte(fmt.Sprintf("k%d", i)), []byte(fmt.Sprint(i)))
	}
	w.Set("op", 3, "g", []byte("old"), []byte("2"))
	w.Set("op", 3, "g", []byte("old"), []byte("3")) // the last write wins
	w.Delete("op", 3, "g", []byte("gone"))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, s, "op", 0, 3, "")
	var want []string
	for _, e := range []struct {
		kg     uint16
		k, val string
	}{{0, "k0", "0"}, {0, "k4", "4"}, {0, "k8", "8"}, {1, "k1", "1"}, {1, "k5", "5"}, {1, "k9", "9"},
		{2, "k2", "2"}, {2, "k6", "6"}, {3, "k3", "3"}, {3, "k7", "7"}, {3, "old", "3"}} {
		want = append(want, entry{"op", e.kg, "g", e.k, e.val}.String())
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("scan after ingest:\n%q\nwant\n%q", got, want)
	}
	names, _ := fs.List("st")
	for _, n := range names {
		if n != dbDir {
			t.Errorf("leftover %s in the store's directory", n)
		}
	}
	// A snapshot holds the ingested data.
	r := restored(t, fs, s, "restore")
	defer r.Close()
	if got := scanAll(t, r, "op", 0, 3, ""); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("restored:\n%q\nwant\n%q", got, want)
	}
}

// failCreateFS fails every Create while fail is set.
type failCreateFS struct {
	vfs.FS
	fail bool
}

func (f *failCreateFS) Create(name string, cat vfs.DiskWriteCategory) (vfs.File, error) {
	if f.fail {
		return nil, errors.New("injected: no space left on device")
	}
	return f.FS.Create(name, cat)
}

// TestSortedFailureForgets: a Commit that fails applies none of its
// writes and forgets them, so the next Commit does not apply them either,
// and leaves no SST behind.
func TestSortedFailureForgets(t *testing.T) {
	fs := &failCreateFS{FS: vfs.NewMem()}
	s := openStore(t, fs, "st")
	w := s.NewSorted()
	w.Set("op", 1, "g", []byte("stale"), []byte("1"))
	fs.fail = true
	if err := w.Commit(); err == nil {
		t.Fatal("Commit succeeded on a failing file system")
	}
	fs.fail = false
	w.Set("op", 1, "g", []byte("fresh"), []byte("2"))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(scanAll(t, s, "op", 0, 3, ""))
	if want := fmt.Sprint([]string{entry{"op", 1, "g", "fresh", "2"}.String()}); got != want {
		t.Fatalf("after a failed and a good Commit: %s, want %s", got, want)
	}
	names, err := fs.List("st")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.HasPrefix(n, "ingest-") {
			t.Errorf("%s left behind", n)
		}
	}
}

// TestSortedChunks: writes that fill several chunks, writes larger than a
// chunk, and a second Commit into the chunks the first one kept are all
// applied whole, the last write of a key winning across chunks.
func TestSortedChunks(t *testing.T) {
	s := openStore(t, vfs.NewMem(), "st")
	w := s.NewSorted()
	value := func(round, i int) []byte {
		n := 1000 + i%7*100
		if i%50 == 0 {
			n = chunkSize + i // larger than a chunk
		}
		return []byte(strings.Repeat(string(rune('a'+(i+round)%26)), n))
	}
	for round := range 2 {
		want := map[string]string{}
		for i := range 3000 {
			k := fmt.Sprintf("k%04d", i%2500) // keys 0..499 written twice
			v := value(round, i)
			w.Set("op", 1, "g", []byte(k), v)
			want[k] = string(v)
		}
		if round == 0 && len(w.chunks) < 3 {
			t.Fatalf("%d chunks: the writes should span several", len(w.chunks))
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		for _, c := range w.chunks {
			if cap(c) != chunkSize || len(c) != 0 {
				t.Fatalf("kept a chunk of len %d cap %d", len(c), cap(c))
			}
		}
		// Compared as they are: quoting each megabyte value (scanAll)
		// is most of the test's time under the race detector.
		got := map[string]string{}
		err := s.Scan("op", 1, 1, "", func(_ uint16, name string, key, value []byte) error {
			if name != "g" {
				return fmt.Errorf("an entry of state %q", name)
			}
			got[string(key)] = string(value)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("round %d: %d entries, want %d", round, len(got), len(want))
		}
		for k, v := range want {
			if gv, ok := got[k]; !ok || gv != v {
				t.Fatalf("round %d: key %s missing or with another value", round, k)
			}
		}
	}
}

// TestIngestingL0Depth checks that an ingesting store lets L0 grow to 64
// sublevels before it compacts it, as the package doc says: each SST that
// a checkpoint ingests overlaps the state, and compacting L0 rewrites it
// (Pebble compacts at half its L0CompactionThreshold).
func TestIngestingL0Depth(t *testing.T) {
	s, err := OpenIngesting(vfs.NewMem(), "st")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	depth := func() (sublevels int32, compacting int64) {
		m := s.db.Metrics()
		return m.Levels[0].Sublevels, m.Compact.NumInProgress
	}
	// The first ingestion goes below L0; each later one, spanning the
	// same key groups, lands on top of L0.
	for i := range 64 {
		w := s.NewSorted()
		w.Set("op", 0, "p", []byte(fmt.Sprint(i)), []byte("a"))
		w.Set("op", 127, "p", []byte(fmt.Sprint(i)), []byte("b"))
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			continue
		}
		for {
			sub, compacting := depth()
			if compacting == 0 {
				if sub != int32(i) {
					t.Fatalf("after %d overlapping ingestions L0 has %d sublevels", i, sub)
				}
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
}
