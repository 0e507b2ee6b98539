package checkpoint

import (
	"bytes"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/state"
)

// TestRescale restores a checkpoint taken at parallelism 2 at parallelism
// 1 (both handles, the whole range) and one taken at parallelism 1 at
// parallelism 2 (one handle, split in two ranges), and checks that each new
// subtask gets exactly the state of its key groups.
func TestRescale(t *testing.T) {
	local, fs := vfs.NewMem(), vfs.NewMem()
	st := openStorage(t, fs, "/ck")
	two := []*subtask{openSubtask(t, local, "/p2/0", 0, 63), openSubtask(t, local, "/p2/1", 64, 127)}
	for _, s := range two {
		change(t, s, 7, 1)
		// A second state name, so that ranges are cut across names too.
		for kg := s.lo; kg <= s.hi; kg += 5 {
			s.set(t, kg, "timers", map[uint64][]byte{uint64(kg): []byte("t")})
		}
	}
	md, _ := checkpoint(t, st, 1, two)
	write(t, st, md)
	all := maps.Clone(two[0].want)
	maps.Copy(all, two[1].want)

	md, err := st.Load(1)
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "2→1", restored(t, local, st, md, 0, 127), all)

	one := []*subtask{openSubtask(t, local, "/p1/0", 0, 127)}
	one[0].want = all
	b := one[0].store.NewBatch()
	for _, s := range two {
		if err := s.store.Scan(uid, s.lo, s.hi, "", func(kg uint16, name string, key, value []byte) error {
			b.Set(uid, kg, name, key, value)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	md, _ = checkpoint(t, st, 2, one)
	write(t, st, md)
	md, err = st.Load(2)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]uint16{{0, 42}, {43, 127}} {
		sameData(t, "1→2", restored(t, local, st, md, r[0], r[1]), only(all, r[0], r[1]))
	}
}

func TestWriteChecks(t *testing.T) {
	local, fs := vfs.NewMem(), vfs.NewMem()
	st := openStorage(t, fs, "/ck")
	sub := openSubtask(t, local, "/w", 0, 127)
	change(t, sub, 3, 1)
	md, _ := checkpoint(t, st, 3, []*subtask{sub})

	bad := func(what string, md *Metadata, want string) {
		t.Helper()
		meta := st.path(chkDir(md.ID) + "/" + metadataName)
		_, existed := fs.Stat(meta)
		err := st.Write(md)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: Write = %v, want %q", what, err, want)
		}
		if _, err := fs.Stat(meta); err == nil && existed != nil {
			t.Fatalf("%s: a failed Write left %s behind", what, metadataName)
		}
	}
	files := md.Operators[0].Subtasks[0].Handle.Files
	edit := func(f func(*state.FileRef) bool) *Metadata {
		c := *md
		c.Operators = []OperatorState{md.Operators[0]}
		c.Operators[0].Subtasks = []SubtaskState{md.Operators[0].Subtasks[0]}
		fs := append([]state.FileRef(nil), files...)
		for i := range fs {
			if f(&fs[i]) {
				break
			}
		}
		c.Operators[0].Subtasks[0].Handle.Files = fs
		return &c
	}
	bad("missing file", edit(func(f *state.FileRef) bool { f.Path += "x"; return f.Shared }), "missing")
	bad("wrong size", edit(func(f *state.FileRef) bool { f.Size++; return true }), "want")
	bad("owned file of another checkpoint", edit(func(f *state.FileRef) bool {
		if f.Shared {
			return false
		}
		f.Path = strings.Replace(f.Path, "chk-3/", "chk-2/", 1)
		return true
	}), "not in chk-3/")
	bad("escaping path", edit(func(f *state.FileRef) bool {
		if !f.Shared {
			return false
		}
		f.Path = "shared/../../etc/passwd"
		return true
	}), "not in shared/")
	bad("ID 0", &Metadata{}, "IDs start at 1")

	write(t, st, md)
	bad("same ID", md, "is complete")
	bad("older ID", &Metadata{ID: 2}, "checkpoint 3 is complete")
	if n, err := st.NextID(); err != nil || n != 4 {
		t.Fatalf("NextID = %d, %v; want 4", n, err)
	}
	// An incomplete, newer directory (a crashed run's) does not block
	// Write, but NextID steps over it.
	if _, err := st.PutOwned(9, "MANIFEST-000001", bytes.NewReader(nil)); err != nil {
		t.Fatal(err)
	}
	if n, err := st.NextID(); err != nil || n != 10 {
		t.Fatalf("NextID = %d, %v; want 10", n, err)
	}
	write(t, st, &Metadata{ID: 4})
	if md, err := st.Latest(func(n int64, err error) {
		if n != 9 || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "incomplete") {
			t.Errorf("Latest reported %d: %v", n, err)
		}
	}); err != nil || md.ID != 4 {
		t.Fatalf("Latest = %v, %v; want 4", md, err)
	}
}

func TestLoadPath(t *testing.T) {
	local, fs := vfs.NewMem(), vfs.NewMem()
	a := openStorage(t, fs, "/state/checkpoints/a")
	sub := openSubtask(t, local, "/w", 0, 127)
	change(t, sub, 3, 1)
	md, snaps := checkpoint(t, a, 1, []*subtask{sub})
	write(t, a, md)

	for _, p := range []string{"/state/checkpoints/a/chk-1", "/state/checkpoints/a/chk-1/_metadata"} {
		got, err := a.LoadPath(p)
		if err != nil || got.ID != 1 {
			t.Fatalf("LoadPath(%s) = %v, %v", p, got, err)
		}
	}
	// From another job's storage: paths are rewritten so that b can serve
	// the restore, and b's next checkpoint does not reference a's files.
	b := openStorage(t, fs, "/state/checkpoints/b")
	got, err := b.LoadPath("/state/checkpoints/a/chk-1")
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "restore from another root", restored(t, local, b, got, 0, 127), snaps[0])
	md2, _ := checkpoint(t, b, 1, []*subtask{sub})
	write(t, b, md2)
	for _, f := range md2.files() {
		if strings.Contains(f.Path, "..") {
			t.Fatalf("checkpoint in b references %s", f.Path)
		}
	}
	if _, err := b.Load(1); err != nil {
		t.Fatal(err)
	}

	for _, p := range []string{"/state/checkpoints/a", "/state/checkpoints/a/chk-x", "/state/checkpoints/a/chk-01"} {
		if _, err := a.LoadPath(p); err == nil || !strings.Contains(err.Error(), "neither") {
			t.Fatalf("LoadPath(%s) = %v, want an error saying what a path must be", p, err)
		}
	}
	if _, err := a.LoadPath("/state/checkpoints/a/chk-7"); err == nil || errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "chk-7 does not exist") {
		t.Fatalf("LoadPath of a missing checkpoint = %v, want one saying it does not exist", err)
	}
	if err := fs.MkdirAll("/state/checkpoints/a/chk-8", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := a.LoadPath("/state/checkpoints/a/chk-8"); !errors.Is(err, ErrIncomplete) || !errors.Is(err, ErrCorrupt) ||
		!strings.Contains(err.Error(), "incomplete checkpoint: chk-8/_metadata is missing") {
		t.Fatalf("LoadPath of an incomplete checkpoint = %v", err)
	}
}

func TestDiscard(t *testing.T) {
	local, fs := vfs.NewMem(), vfs.NewMem()
	st := openStorage(t, fs, "/ck")
	sub := openSubtask(t, local, "/w", 0, 127)
	change(t, sub, 3, 1)
	md, _ := checkpoint(t, st, 1, []*subtask{sub})
	write(t, st, md)
	if err := st.Discard(); err != nil {
		t.Fatal(err)
	}
	if md, err := st.Latest(nil); md != nil || err != nil {
		t.Fatalf("after Discard, Latest = %v, %v", md, err)
	}
	if names := sharedFiles(t, st); len(names) != 0 {
		t.Fatalf("after Discard, shared/ holds %q", names)
	}
	// The store's next upload finds its old SSTs gone and copies them.
	md, _ = checkpoint(t, st, 1, []*subtask{sub})
	write(t, st, md)
	if h := md.Operators[0].Subtasks[0].Handle; h.BytesUploaded != h.Size() {
		t.Fatalf("after Discard, upload copied %d of %d bytes", h.BytesUploaded, h.Size())
	}
	if _, err := st.Load(1); err != nil {
		t.Fatal(err)
	}
}

// TestEnded checks the record of a lineage's end: absent until set, the
// lineage set, replaced by a later one, and gone with Discard, so that a
// job started afresh after --fresh has not ended.
func TestEnded(t *testing.T) {
	st := openStorage(t, vfs.NewMem(), "/ck")
	ended := func() string {
		t.Helper()
		name, err := st.Ended()
		if err != nil {
			t.Fatal(err)
		}
		return name
	}
	if got := ended(); got != "" {
		t.Fatalf("new storage: ended %q, want none", got)
	}
	for _, name := range []string{"q_1_aaaa", "q_1_bbbb"} {
		if err := st.SetEnded(name); err != nil {
			t.Fatal(err)
		}
		if got := ended(); got != name {
			t.Fatalf("ended %q, want %q", got, name)
		}
	}
	if err := st.SetLineage("q_1_cccc"); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Lineage(); err != nil || got != "q_1_cccc" {
		t.Fatalf("lineage %q, %v", got, err)
	}
	if got := ended(); got != "q_1_bbbb" {
		t.Fatalf("a new lineage changed the record of the end: %q", got)
	}
	if err := st.Discard(); err != nil {
		t.Fatal(err)
	}
	if got := ended(); got != "" {
		t.Fatalf("after Discard: ended %q, want none", got)
	}
}
