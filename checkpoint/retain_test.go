package checkpoint

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/state"
)

// change writes n rows of version v spread over the subtask's key groups.
func change(t *testing.T, s *subtask, n int, v uint64) {
	t.Helper()
	for kg := s.lo; kg <= s.hi; kg++ {
		rows := map[uint64][]byte{}
		for i := range uint64(n) {
			rows[i] = valueOf(i+uint64(kg)<<32, v)
		}
		s.set(t, kg, "acc", rows)
	}
}

// sharedFiles lists shared/.
func sharedFiles(t *testing.T, st *Storage) []string {
	t.Helper()
	names, err := st.fs.List(st.path(sharedDir))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		names[i] = sharedDir + "/" + n
	}
	slices.Sort(names)
	return names
}

func refsOf(mds ...*Metadata) map[string]bool {
	refs := map[string]bool{}
	for _, md := range mds {
		for _, f := range md.files() {
			refs[f.Path] = true
		}
	}
	return refs
}

func chkDirs(t *testing.T, st *Storage) []int64 {
	t.Helper()
	ids, err := st.ids()
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestRetain takes checkpoints 1 to 5 with Retain(2) after each, as the
// coordinator does, with a restart between 3 and 4: the job restores
// checkpoint 3 into new stores, so 4 and 5 share no SST with 1 to 3, and
// the storage's reference counts must come from the _metadata files alone.
func TestRetain(t *testing.T) {
	local, fs := vfs.NewMem(), vfs.NewMem()
	const root = "/state/checkpoints/job"
	st := openStorage(t, fs, root)
	subs := []*subtask{openSubtask(t, local, "/run1/0", 0, 63), openSubtask(t, local, "/run1/1", 64, 127)}
	all := map[int64]*Metadata{}
	for id := int64(1); id <= 3; id++ {
		change(t, subs[0], 20, uint64(id))
		change(t, subs[1], 20, uint64(id))
		md, _ := checkpoint(t, st, id, subs)
		write(t, st, md)
		all[id] = md
		if err := st.Retain(2); err != nil {
			t.Fatal(err)
		}
	}
	if got := chkDirs(t, st); !slices.Equal(got, []int64{2, 3}) {
		t.Fatalf("after 3 checkpoints, Retain(2) kept %v", got)
	}

	// Restart: a new Storage, the latest checkpoint restored into new
	// stores by scanning, new IDs after every old one.
	st = openStorage(t, fs, root)
	md3, err := st.Latest(func(n int64, err error) { t.Errorf("checkpoint %d skipped: %v", n, err) })
	if err != nil || md3 == nil || md3.ID != 3 {
		t.Fatalf("Latest = %v, %v; want checkpoint 3", md3, err)
	}
	next, err := st.NextID()
	if err != nil || next != 4 {
		t.Fatalf("NextID = %d, %v; want 4", next, err)
	}
	want := []data{subs[0].want, subs[1].want}
	subs = []*subtask{openSubtask(t, local, "/run2/0", 0, 63), openSubtask(t, local, "/run2/1", 64, 127)}
	for i, s := range subs {
		got := restored(t, local, st, md3, s.lo, s.hi)
		sameData(t, "restored checkpoint 3", got, want[i])
		b := s.store.NewBatch()
		for k, v := range got {
			var kg uint16
			var name string
			var key []byte
			fmt.Sscanf(strings.ReplaceAll(k, "/", " "), "%d %s %x", &kg, &name, &key)
			b.Set(uid, kg, name, key, []byte(v))
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		s.want = got
	}
	for id := next; id <= 5; id++ {
		change(t, subs[0], 10, uint64(id))
		change(t, subs[1], 10, uint64(id))
		md, _ := checkpoint(t, st, id, subs)
		write(t, st, md)
		all[id] = md
		if err := st.Retain(2); err != nil {
			t.Fatal(err)
		}
		// Every retained checkpoint still verifies after each pass.
		for _, n := range chkDirs(t, st) {
			if _, err := st.Load(n); err != nil {
				t.Fatalf("after Retain at %d: %v", id, err)
			}
		}
	}

	check := func(st *Storage) {
		t.Helper()
		if got := chkDirs(t, st); !slices.Equal(got, []int64{4, 5}) {
			t.Fatalf("Retain(2) after 5 checkpoints kept %v, want [4 5]", got)
		}
		for _, n := range []int64{4, 5} {
			if _, err := st.Load(n); err != nil {
				t.Fatal(err)
			}
		}
		needed := refsOf(all[4], all[5])
		for _, p := range sharedFiles(t, st) {
			if !needed[p] {
				t.Fatalf("%s is kept but neither 4 nor 5 references it", p)
			}
		}
		gone := 0
		for p := range refsOf(all[1], all[2], all[3]) {
			if needed[p] {
				continue
			}
			gone++
			if _, err := fs.Stat(st.path(p)); err == nil {
				t.Fatalf("%s, needed only by checkpoints 1-3, was not deleted", p)
			}
		}
		if gone == 0 {
			t.Fatal("no file was needed by 1-3 only: the test proves nothing")
		}
	}
	check(st)
	// Once more on a reopened storage: nothing changes, nothing needed goes.
	st = openStorage(t, fs, root)
	if err := st.Retain(2); err != nil {
		t.Fatal(err)
	}
	check(st)
	if err := st.Retain(1); err != nil {
		t.Fatal(err)
	}
	if got := chkDirs(t, st); !slices.Equal(got, []int64{5}) {
		t.Fatalf("Retain(1) kept %v", got)
	}
	if _, err := st.Load(5); err != nil {
		t.Fatal(err)
	}
	if got, want := sharedFiles(t, st), slices.Sorted(maps.Keys(sharedOf(all[5]))); !slices.Equal(got, want) {
		t.Fatalf("after Retain(1), shared/ holds %q, want %q", got, want)
	}
}

func sharedOf(md *Metadata) map[string]bool {
	refs := map[string]bool{}
	for _, f := range md.files() {
		if f.Shared {
			refs[f.Path] = true
		}
	}
	return refs
}

// TestRetainInFlight shows what Retain does with files no complete
// checkpoint references: those an upload of a newer checkpoint claimed
// stay, orphans of a checkpoint that never completed go, and so do
// incomplete directories older than the newest complete checkpoint.
func TestRetainInFlight(t *testing.T) {
	local, fs := vfs.NewMem(), vfs.NewMem()
	st := openStorage(t, fs, "/ck")
	sub := openSubtask(t, local, "/w", 0, 127)
	change(t, sub, 5, 1)
	md1, _ := checkpoint(t, st, 1, []*subtask{sub})
	write(t, st, md1)

	// Checkpoint 2 uploads but never completes (its job failed); 3 is in
	// flight when 1 is retained again.
	change(t, sub, 5, 2)
	md2, _ := checkpoint(t, st, 2, []*subtask{sub})
	change(t, sub, 5, 3)
	md3, _ := checkpoint(t, st, 3, []*subtask{sub})
	if err := st.Retain(1); err != nil {
		t.Fatal(err)
	}
	for p := range refsOf(md1, md2, md3) {
		if _, err := fs.Stat(st.path(p)); err != nil {
			t.Fatalf("%s deleted while checkpoints 2 and 3 are in flight: %v", p, err)
		}
	}
	// 3 completes: 2's orphans go, 1 goes, 3 keeps everything.
	write(t, st, md3)
	if err := st.Retain(1); err != nil {
		t.Fatal(err)
	}
	if got := chkDirs(t, st); !slices.Equal(got, []int64{3}) {
		t.Fatalf("kept %v, want [3]", got)
	}
	needed := refsOf(md3)
	for p := range refsOf(md1, md2) {
		if _, err := fs.Stat(st.path(p)); (err == nil) != needed[p] {
			t.Fatalf("%s: exists %v, needed by 3 %v", p, err == nil, needed[p])
		}
	}
	if _, err := st.Load(3); err != nil {
		t.Fatal(err)
	}

	// A restart forgets claims: an orphan in shared/ goes at the next
	// Retain, which a new checkpoint's upload then does not rely on.
	orphan, err := st.PutShared(4, "000099.sst", bytes.NewReader([]byte("orphan")))
	if err != nil {
		t.Fatal(err)
	}
	st = openStorage(t, fs, "/ck")
	if err := st.Retain(1); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(st.path(orphan)); err == nil {
		t.Fatal("orphan of a crashed run survived Retain")
	}
	if st.HasShared(5, state.FileRef{Path: orphan, Size: 6, Shared: true}) {
		t.Fatal("HasShared reports a deleted file")
	}
	change(t, sub, 5, 5)
	md5, _ := checkpoint(t, st, 5, []*subtask{sub})
	write(t, st, md5)
	if _, err := st.Load(5); err != nil {
		t.Fatal(err)
	}
}
