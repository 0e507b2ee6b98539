package state

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

type entry struct {
	uid  string
	kg   uint16
	name string
	key  string
	val  string
}

func (e entry) String() string {
	return fmt.Sprintf("%s/%d/%s/%q=%q", e.uid, e.kg, e.name, e.key, e.val)
}

// model is the expected content of a store, in scan order.
type model []entry

func (m model) scan(uid string, lo, hi uint16, name string) []string {
	var out []string
	for _, e := range m {
		if e.uid == uid && e.kg >= lo && e.kg <= hi && (name == "" || e.name == name) {
			out = append(out, e.String())
		}
	}
	return out
}

type scannable interface {
	Scan(uid string, kgLo, kgHi uint16, name string, fn ScanFunc) error
}

func scanAll(t *testing.T, s scannable, uid string, lo, hi uint16, name string) []string {
	t.Helper()
	var out []string
	err := s.Scan(uid, lo, hi, name, func(kg uint16, n string, key, value []byte) error {
		out = append(out, entry{uid, kg, n, string(key), string(value)}.String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func openStore(t *testing.T, fs vfs.FS, dir string) *Store {
	t.Helper()
	s, err := Open(fs, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fill writes entries of two operators, several key groups including the
// extremes, two state names (one a prefix of the other, and of a key) and
// keys that contain 0x00 and 0xff, and returns them in scan order.
func fill(t *testing.T, s *Store) model {
	t.Helper()
	var m model
	b := s.NewBatch()
	for _, uid := range []string{"agg", "ag", "agg\xff"} {
		for _, kg := range []uint16{0, 1, 2, 7, 127, 128, 0xfffe, 0xffff} {
			for _, name := range []string{"acc", "a", "acc2"} {
				for _, key := range []string{"", "\x00", "k1", "k1\x00", "k2", "\xff\xff"} {
					v := fmt.Sprintf("%s|%d|%s|%x", uid, kg, name, key)
					b.Set(uid, kg, name, []byte(key), []byte(v))
					m = append(m, entry{uid, kg, name, key, v})
				}
			}
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	// Scan order: key group, then name as encoded (length first), then key.
	slices.SortFunc(m, func(a, b entry) int {
		return bytes.Compare(encodeKey(nil, a.uid, a.kg, a.name, []byte(a.key)), encodeKey(nil, b.uid, b.kg, b.name, []byte(b.key)))
	})
	return m
}

func TestScanKeyGroups(t *testing.T) {
	s := openStore(t, vfs.NewMem(), "/store")
	m := fill(t, s)
	ranges := [][2]uint16{{0, 0}, {0, 1}, {1, 7}, {2, 2}, {3, 6}, {0, 127}, {128, 0xffff}, {0xffff, 0xffff}, {0, 0xffff}, {7, 3}}
	for _, uid := range []string{"agg", "ag", "agg\xff", "nope"} {
		for _, r := range ranges {
			for _, name := range []string{"", "a", "acc", "acc2", "ac"} {
				got := scanAll(t, s, uid, r[0], r[1], name)
				want := m.scan(uid, r[0], r[1], name)
				if !slices.Equal(got, want) {
					t.Fatalf("Scan(%q, %d, %d, %q):\n got %q\nwant %q", uid, r[0], r[1], name, got, want)
				}
			}
		}
	}
	if n := len(scanAll(t, s, "agg", 0, 0xffff, "")); n != 8*3*6 {
		t.Fatalf("full scan of agg: %d entries, want %d", n, 8*3*6)
	}
}

func TestWrites(t *testing.T) {
	s := openStore(t, vfs.NewMem(), "/store")
	m := fill(t, s)
	b := s.NewBatch()
	b.Delete("agg", 7, "acc", []byte("k1"))
	b.DeletePrefix("agg", 127, "acc", []byte("k1")) // k1, k1\x00; not k2
	b.DeletePrefix("agg", 0xffff, "a", nil)         // the whole name, not acc
	b.DeletePrefix("ag", 0xffff, "acc", []byte("\xff\xff"))
	b.DeleteRange("agg", 2, "acc", []byte("\x00"), []byte("k2")) // \x00, k1, k1\x00; not "" or k2
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	m = slices.DeleteFunc(m, func(e entry) bool {
		return e.uid == "agg" && e.kg == 7 && e.name == "acc" && e.key == "k1" ||
			e.uid == "agg" && e.kg == 127 && e.name == "acc" && strings.HasPrefix(e.key, "k1") ||
			e.uid == "agg" && e.kg == 0xffff && e.name == "a" ||
			e.uid == "ag" && e.kg == 0xffff && e.name == "acc" && e.key == "\xff\xff" ||
			e.uid == "agg" && e.kg == 2 && e.name == "acc" && e.key >= "\x00" && e.key < "k2"
	})
	for _, uid := range []string{"agg", "ag"} {
		if got, want := scanAll(t, s, uid, 0, 0xffff, ""), m.scan(uid, 0, 0xffff, ""); !slices.Equal(got, want) {
			t.Fatalf("after deletes, %s:\n got %q\nwant %q", uid, got, want)
		}
	}
	// The batch is reusable after Commit.
	b.Set("agg", 7, "acc", []byte("k1"), []byte("again"))
	b.Set("agg", 7, "acc", []byte("empty"), nil)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key, want string
		ok        bool
	}{{"k1", "again", true}, {"empty", "", true}, {"k9", "", false}} {
		v, ok, err := s.Get("agg", 7, "acc", []byte(c.key))
		if err != nil || ok != c.ok || string(v) != c.want || (ok && v == nil) {
			t.Fatalf("Get(%q) = %q, %v, %v; want %q, %v", c.key, v, ok, err, c.want, c.ok)
		}
	}
	v, _, _ := s.Get("agg", 7, "acc", []byte("k1"))
	v[0] = 'X' // a copy: the store does not change
	if v, _, _ := s.Get("agg", 7, "acc", []byte("k1")); string(v) != "again" {
		t.Fatalf("Get returned a shared buffer: %q", v)
	}
}

func TestScanStops(t *testing.T) {
	s := openStore(t, vfs.NewMem(), "/store")
	fill(t, s)
	stop := errors.New("stop")
	n := 0
	err := s.Scan("agg", 0, 0xffff, "acc", func(uint16, string, []byte, []byte) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if err != stop || n != 3 {
		t.Fatalf("Scan returned %v after %d calls, want stop after 3", err, n)
	}
}

func TestKeyOrder(t *testing.T) {
	// Within one uid, encoded keys sort by key group first, whatever the
	// names and keys; the length prefixes keep "a"+"b..." apart from "ab".
	a := encodeKey(nil, "u", 1, "zzzz", []byte("\xff\xff\xff"))
	b := encodeKey(nil, "u", 2, "a", nil)
	if bytes.Compare(a, b) >= 0 {
		t.Fatal("key group 1 does not sort before key group 2")
	}
	if bytes.Equal(encodeKey(nil, "u", 1, "a", []byte("b")), encodeKey(nil, "u", 1, "ab", nil)) {
		t.Fatal("name/key boundary is ambiguous")
	}
	kg, name, key, err := decodeKey(a, len(appendUID(nil, "u")))
	if err != nil || kg != 1 || string(name) != "zzzz" || string(key) != "\xff\xff\xff" {
		t.Fatalf("decodeKey = %d %q %q %v", kg, name, key, err)
	}
	if successor([]byte{0xff, 0xff}) != nil || !bytes.Equal(successor([]byte{1, 0xff}), []byte{2}) {
		t.Fatal("successor")
	}
}

// dirTarget is checkpoint storage in a directory, enough to exercise
// uploads and restores without package checkpoint.
type dirTarget struct {
	fs   vfs.FS
	root string
	puts int
}

func (d *dirTarget) HasShared(id int64, f FileRef) bool {
	st, err := d.fs.Stat(d.fs.PathJoin(d.root, f.Path))
	return err == nil && st.Size() == f.Size
}

func (d *dirTarget) PutShared(id int64, name string, r io.Reader) (string, error) {
	return d.put(fmt.Sprintf("shared-%d-%s", d.puts, name), r)
}

func (d *dirTarget) PutOwned(id int64, name string, r io.Reader) (string, error) {
	return d.put(fmt.Sprintf("chk-%d-%d-%s", id, d.puts, name), r)
}

func (d *dirTarget) put(path string, r io.Reader) (string, error) {
	d.puts++
	f, err := d.fs.Create(d.fs.PathJoin(d.root, path), vfs.WriteCategoryUnspecified)
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = io.Copy(f, r)
	return path, err
}

func (d *dirTarget) Open(path string) (io.ReadCloser, error) {
	return d.fs.Open(d.fs.PathJoin(d.root, path))
}

// restored checkpoints s, uploads the checkpoint into /storage of fs and
// restores it at dir; the caller closes what it returns.
func restored(t *testing.T, fs vfs.FS, s *Store, dir string) *Reader {
	t.Helper()
	sn, err := s.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	dst := &dirTarget{fs: fs, root: "/storage"}
	if err := fs.MkdirAll(dst.root, 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := sn.Upload(dst)
	if err != nil {
		t.Fatal(err)
	}
	r, err := OpenHandle(fs, dst, h, dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestUploadRestore(t *testing.T) {
	fs := vfs.NewMem()
	s := openStore(t, fs, "/store")
	m := fill(t, s)
	dst := &dirTarget{fs: fs, root: "/storage"}
	if err := fs.MkdirAll(dst.root, 0o755); err != nil {
		t.Fatal(err)
	}
	sn, err := s.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	// Writes after Snapshot are not in it.
	b := s.NewBatch()
	b.Set("agg", 3, "acc", []byte("late"), []byte("x"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	h1, err := sn.Upload(dst)
	if err != nil {
		t.Fatal(err)
	}
	if h1.BytesUploaded != h1.Size() || h1.Size() == 0 {
		t.Fatalf("first upload copied %d of %d bytes, want all", h1.BytesUploaded, h1.Size())
	}
	if _, err := fs.Stat(sn.dir); err == nil {
		t.Fatal("Upload left its snapshot directory behind")
	}
	sn2, err := s.Snapshot(2)
	if err != nil {
		t.Fatal(err)
	}
	h2, err := sn2.Upload(dst)
	if err != nil {
		t.Fatal(err)
	}
	// Every SST of the first snapshot that is still in the second (a
	// compaction may have replaced some) is reused, not copied again.
	var copied int64
	for _, f := range h2.Files {
		i := slices.IndexFunc(h1.Files, func(g FileRef) bool { return g.Name == f.Name })
		switch {
		case f.Shared && i >= 0 && h1.Files[i] != f:
			t.Fatalf("second upload copied %s again: %+v, first %+v", f.Name, f, h1.Files[i])
		case !f.Shared || i < 0:
			copied += f.Size
		}
	}
	if h2.BytesUploaded != copied {
		t.Fatalf("second upload reports %d bytes uploaded, copied %d", h2.BytesUploaded, copied)
	}
	r, err := OpenHandle(fs, dst, h1, "/restore")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, uid := range []string{"agg", "ag", "agg\xff"} {
		if got, want := scanAll(t, r, uid, 0, 0xffff, ""), m.scan(uid, 0, 0xffff, ""); !slices.Equal(got, want) {
			t.Fatalf("restored %s:\n got %q\nwant %q", uid, got, want)
		}
	}
}

func TestRestoreVerifies(t *testing.T) {
	fs := vfs.NewMem()
	s := openStore(t, fs, "/store")
	fill(t, s)
	dst := &dirTarget{fs: fs, root: "/storage"}
	if err := fs.MkdirAll(dst.root, 0o755); err != nil {
		t.Fatal(err)
	}
	sn, err := s.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	h, err := sn.Upload(dst)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range h.Files {
		for _, c := range []struct {
			name   string
			mutate func(*FileRef)
			want   string
		}{
			{"size", func(f *FileRef) { f.Size++ }, "truncated"},
			{"shorter", func(f *FileRef) { f.Size-- }, "longer"},
			{"crc", func(f *FileRef) { f.CRC32C ^= 1 }, "checksum mismatch"},
			{"path", func(f *FileRef) { f.Path += ".gone" }, "missing"},
		} {
			if c.name == "shorter" && f.Size == 0 {
				continue
			}
			bad := Handle{Files: slices.Clone(h.Files)}
			c.mutate(&bad.Files[i])
			_, err := OpenHandle(fs, dst, bad, "/restore")
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), bad.Files[i].Path) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%s of %s: OpenHandle = %v, want ErrCorrupt naming it, %q", c.name, f.Name, err, c.want)
			}
		}
	}
}

func TestOpenStartsEmpty(t *testing.T) {
	fs := vfs.NewMem()
	s, err := Open(fs, "/store")
	if err != nil {
		t.Fatal(err)
	}
	fill(t, s)
	if _, err := s.Snapshot(1); err != nil { // never uploaded: a crash
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, fs, "/store")
	if got := scanAll(t, s, "agg", 0, 0xffff, ""); len(got) != 0 {
		t.Fatalf("reopened store holds %d entries of an earlier process", len(got))
	}
	if names, _ := fs.List("/store"); !slices.Equal(names, []string{dbDir}) {
		t.Fatalf("store directory holds %q", names)
	}
}

func TestEmptyName(t *testing.T) {
	s := openStore(t, vfs.NewMem(), "/store")
	b := s.NewBatch()
	b.Set("agg", 1, "acc", []byte("k"), []byte("v"))
	b.Set("agg", 1, "", []byte("k"), []byte("v"))
	if err := b.Commit(); err == nil || !strings.Contains(err.Error(), "empty state name") {
		t.Fatalf("Commit = %v, want the empty name refused", err)
	}
	if _, ok, _ := s.Get("agg", 1, "acc", []byte("k")); ok {
		t.Fatal("a refused batch was partly applied")
	}
}

// A Get of a key never written is answered by the SSTs' bloom filters
// without reading their data blocks, the case of a join or Top-N probing
// for a row it has not stored.
func TestGetMissUsesFilter(t *testing.T) {
	s, err := Open(vfs.NewMem(), "st")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := s.NewBatch()
	for i := range 1000 {
		b.Set("join", 1, "rows", fmt.Appendf(nil, "k%04d", 2*i), []byte("v"))
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if _, ok, err := s.Get("join", 1, "rows", fmt.Appendf(nil, "k%04d", 2*i+1)); err != nil || ok {
			t.Fatalf("get of an absent key: ok=%v err=%v", ok, err)
		}
	}
	if v, ok, err := s.Get("join", 1, "rows", []byte("k0042")); err != nil || !ok || string(v) != "v" {
		t.Fatalf("get of a stored key: %q %v %v", v, ok, err)
	}
	if f := s.db.Metrics().Filter; f.Hits < 900 {
		t.Fatalf("bloom filter answered %d of 1000 misses (%d not), want >= 900", f.Hits, f.Misses)
	}
}
