package state

import (
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// linkTarget is a Target on the local disk that takes SSTs by hard links
// (Linker), as checkpoint storage on the Store's file system does.
type linkTarget struct {
	dir    string
	n      int
	linked int
}

func (t *linkTarget) HasShared(int64, FileRef) bool { return false }

func (t *linkTarget) put(name string, r io.Reader) (string, error) {
	t.n++
	path := filepath.Join(t.dir, fmt.Sprint(t.n, "-", name))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = io.Copy(f, r)
	return path, err
}

func (t *linkTarget) PutShared(_ int64, name string, r io.Reader) (string, error) {
	return t.put(name, r)
}

func (t *linkTarget) PutOwned(_ int64, name string, r io.Reader) (string, error) {
	return t.put(name, r)
}

func (t *linkTarget) LinkShared(_ int64, name string, fs vfs.FS, path string) (string, error) {
	t.n++
	t.linked++
	dst := filepath.Join(t.dir, fmt.Sprint(t.n, "-", name))
	return dst, fs.Link(path, dst)
}

// TestFileSumsOfStore checks the sums that uploads take from fileSums
// against the files, through a Store's flushes, compactions and
// ingestions: every SST reference an upload returns has the size and
// CRC32C of the bytes storage holds, and most are taken without reading
// the file back.
func TestFileSumsOfStore(t *testing.T) {
	for _, ingesting := range []bool{false, true} {
		t.Run(fmt.Sprint("ingesting=", ingesting), func(t *testing.T) {
			dir := t.TempDir()
			open := Open
			if ingesting {
				open = OpenIngesting
			}
			s, err := open(vfs.Default, filepath.Join(dir, "store"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			dst := &linkTarget{dir: filepath.Join(dir, "storage")}
			if err := os.Mkdir(dst.dir, 0o755); err != nil {
				t.Fatal(err)
			}
			sums := s.fs.(*snapFS).FS.(scratchFS).sums
			hits := 0
			val := []byte(strings.Repeat("v", 100))
			// Each upload runs while the next checkpoint's writes go on,
			// as a checkpoint's does (Snapshot.Upload).
			type uploaded struct {
				id  int64
				h   Handle
				err error
			}
			var pending chan uploaded
			check := func() {
				u := <-pending
				if u.err != nil {
					t.Fatal(u.err)
				}
				for _, f := range u.h.Files {
					b, err := os.ReadFile(f.Path)
					if err != nil {
						t.Fatal(err)
					}
					if crc := crc32.Checksum(b, castagnoli); int64(len(b)) != f.Size || crc != f.CRC32C {
						t.Fatalf("checkpoint %d: %s: reference %d bytes crc %08x, file %d bytes crc %08x",
							u.id, f.Name, f.Size, f.CRC32C, len(b), crc)
					}
				}
			}
			for id := int64(1); id <= 12; id++ {
				b := s.NewBatch()
				w := s.NewSorted()
				for i := range 1000 {
					key := []byte(fmt.Sprintf("%06d", (int(id)*7919+i*31)%50000))
					b.Set("op", uint16(i%128), "b", key, val)
					w.Set("op", uint16(i%128), "s", key, val)
				}
				if err := b.Commit(); err != nil {
					t.Fatal(err)
				}
				if err := w.Commit(); err != nil {
					t.Fatal(err)
				}
				if pending != nil {
					check()
				}
				sn, err := s.Snapshot(id)
				if err != nil {
					t.Fatal(err)
				}
				for _, name := range mustList(t, s.fs, sn.dir) {
					if _, ok := sums.get(s.fs.(*snapFS).real(s.fs.PathJoin(sn.dir, name))); ok {
						hits++
					}
				}
				pending = make(chan uploaded, 1)
				go func(id int64, done chan<- uploaded) {
					h, err := sn.Upload(dst)
					done <- uploaded{id, h, err}
				}(id, pending)
			}
			check()
			t.Logf("%d SSTs linked, %d with a sum", dst.linked, hits)
			// The sums of removed files are dropped: a long job's set is
			// its live SSTs'.
			live := 0
			for _, name := range mustList(t, s.fs, s.fs.PathJoin(s.dir, dbDir)) {
				if summed(name) {
					live++
				}
			}
			sums.mu.Lock()
			kept := len(sums.sums)
			sums.mu.Unlock()
			if kept > live {
				t.Fatalf("%d sums kept for %d SSTs", kept, live)
			}
			if dst.linked == 0 || hits == 0 {
				t.Fatalf("%d SSTs linked, %d with a sum: the sums were not used", dst.linked, hits)
			}
		})
	}
}

func mustList(t *testing.T, fs vfs.FS, dir string) []string {
	t.Helper()
	names, err := fs.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	return names
}
