package checkpoint

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/state"
)

// deltaCount is the number of delta files a handle lists.
func deltaCount(h state.Handle) int {
	n := 0
	for _, f := range h.Files {
		if strings.HasPrefix(f.Name, "delta-") {
			n++
		}
	}
	return n
}

// TestDeltaRetain takes 40 checkpoints of one subtask whose store takes
// delta snapshots (state.Store.SnapshotDelta), each completed as the
// coordinator completes one: its _metadata written, then Retain. Now and
// then a Batch or a large change makes a snapshot full, a new base; two
// checkpoints are uploaded but never completed (the next one lists the
// delta, or the base's MANIFEST, that such an upload put) and one is
// discarded before its upload (its SST is a delta of the next). After every completion the latest checkpoint, and
// with keep 2 the one before, load (every file there and intact) and
// restore to the state they were taken of: retention never deletes a
// base file or an earlier delta that a retained handle lists. At the end
// storage holds only the shared files retained checkpoints reference,
// and fewer than it put: old bases were deleted.
func TestDeltaRetain(t *testing.T) {
	for _, c := range []struct {
		name   string
		keep   int
		linked bool // storage on the store's file system: SSTs linked into it
	}{{"keep1", 1, false}, {"keep2", 2, false}, {"keep1-linked", 1, true}} {
		t.Run(c.name, func(t *testing.T) { deltaRetain(t, c.keep, c.linked) })
	}
}

func deltaRetain(t *testing.T, keep int, linked bool) {
	const (
		checkpoints = 40
		keys        = 8 // per key group
	)
	var (
		batch     = map[int64]bool{12: true, 29: true}
		large     = map[int64]bool{21: true}
		abandoned = map[int64]bool{17: true, 29: true} // uploaded, never completed; 29 a new base
		discarded = int64(34)                          // discarded before its upload
	)
	local := vfs.NewMem()
	fs := vfs.NewMem()
	if linked {
		fs = local
	}
	st := openStorage(t, fs, "/state/checkpoints/job")
	store, sub := ingestingSubtask(t, local)
	rng := rand.New(rand.NewPCG(3, 4))
	// change writes n random rows of version v to w and the model:
	// sets of new and existing keys and deletes.
	change := func(w interface {
		Set(uid string, kg uint16, name string, key, value []byte)
		Delete(uid string, kg uint16, name string, key []byte)
	}, n int, v uint64) {
		for range n {
			kg, i := uint16(rng.IntN(maxPar)), uint64(rng.IntN(keys))
			k := dkey(kg, "acc", keyOf(i))
			if rng.IntN(4) == 0 {
				w.Delete(uid, kg, "acc", keyOf(i))
				delete(sub.want, k)
				continue
			}
			w.Set(uid, kg, "acc", keyOf(i), valueOf(i, v))
			sub.want[k] = string(valueOf(i, v))
		}
	}
	w := store.NewSorted()
	wants := map[int64]data{}
	var (
		nDelta, nFull int
		put           = map[string]bool{} // every shared file any checkpoint listed
		completed     []int64
	)
	for id := int64(1); id <= checkpoints; id++ {
		if batch[id] {
			b := store.NewBatch()
			change(b, 5, uint64(id))
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		switch {
		case id == 1:
			for kg := range uint16(maxPar) {
				for i := range uint64(keys) {
					w.Set(uid, kg, "acc", keyOf(i), valueOf(i, 1))
					sub.want[dkey(kg, "acc", keyOf(i))] = string(valueOf(i, 1))
				}
			}
		case large[id]:
			change(w, 2000, uint64(id))
		default:
			change(w, 1+rng.IntN(5), uint64(id))
		}
		sn, err := store.SnapshotDelta(id, w)
		if err != nil {
			t.Fatalf("checkpoint %d: %v", id, err)
		}
		wants[id] = maps.Clone(sub.want)
		if id == discarded {
			if err := sn.Discard(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		h, err := sn.Upload(st)
		if err != nil {
			t.Fatalf("checkpoint %d: %v", id, err)
		}
		n := deltaCount(h)
		if n == 0 {
			nFull++
		} else {
			nDelta++
		}
		if (id == 1 || batch[id] || large[id]) != (n == 0) {
			t.Fatalf("checkpoint %d: %d deltas; want a full snapshot only after a Batch or a large change", id, n)
		}
		if id == discarded+1 && n < 2 {
			t.Fatalf("checkpoint %d lists %d deltas, want the discarded one's among them", id, n)
		}
		for _, f := range h.Files {
			if f.Shared {
				put[f.Path] = true
			}
		}
		if abandoned[id] {
			continue
		}
		write(t, st, &Metadata{ID: id, Job: "job", Operators: []OperatorState{{
			UID: uid, MaxParallelism: maxPar,
			Subtasks: []SubtaskState{{KeyGroupHi: maxPar - 1, Handle: h}},
		}}})
		if err := st.Retain(keep); err != nil {
			t.Fatal(err)
		}
		completed = append(completed, id)
		retained := completed[max(0, len(completed)-keep):]
		if got := chkDirs(t, st); !slices.Equal(got, retained) {
			t.Fatalf("after checkpoint %d, Retain(%d) kept %v, want %v", id, keep, got, retained)
		}
		for _, n := range retained {
			md, err := st.Load(n)
			if err != nil {
				t.Fatalf("after checkpoint %d, retained checkpoint %d: %v", id, n, err)
			}
			got := restored(t, local, st, md, 0, maxPar-1)
			sameData(t, fmt.Sprintf("after checkpoint %d, checkpoint %d restored", id, n), got, wants[n])
		}
	}
	if nDelta < checkpoints/2 || nFull < 4 {
		t.Fatalf("%d delta and %d full checkpoints; the test needs many deltas and a few bases", nDelta, nFull)
	}
	var mds []*Metadata
	for _, n := range completed[len(completed)-keep:] {
		md, err := st.Load(n)
		if err != nil {
			t.Fatal(err)
		}
		mds = append(mds, md)
	}
	refs := refsOf(mds...)
	shared := sharedFiles(t, st)
	for _, p := range shared {
		if !refs[p] {
			t.Errorf("%s is in storage, no retained checkpoint lists it", p)
		}
	}
	if len(shared) >= len(put) {
		t.Fatalf("storage holds %d shared files of the %d put: retention deleted none", len(shared), len(put))
	}
}

// TestDeltaLateUpload uploads a delta snapshot after a newer checkpoint,
// a new base, completed and retention deleted the files of the old base
// that no retained checkpoint lists (its MANIFEST): the late upload puts
// them again instead of referencing what storage no longer holds, and
// its handle restores.
func TestDeltaLateUpload(t *testing.T) {
	local, fs := vfs.NewMem(), vfs.NewMem()
	st := openStorage(t, fs, "/state/checkpoints/job")
	store, sub := ingestingSubtask(t, local)
	w := store.NewSorted()
	set := func(w interface {
		Set(uid string, kg uint16, name string, key, value []byte)
	}, kgs int, v uint64) {
		for kg := range uint16(kgs) {
			for i := range uint64(8) {
				w.Set(uid, kg, "acc", keyOf(i), valueOf(i, v))
				sub.want[dkey(kg, "acc", keyOf(i))] = string(valueOf(i, v))
			}
		}
	}
	complete := func(id int64, h state.Handle) {
		t.Helper()
		write(t, st, &Metadata{ID: id, Job: "job", Operators: []OperatorState{{
			UID: uid, MaxParallelism: maxPar,
			Subtasks: []SubtaskState{{KeyGroupHi: maxPar - 1, Handle: h}},
		}}})
		if err := st.Retain(1); err != nil {
			t.Fatal(err)
		}
	}
	snap := func(id int64) *state.Snapshot {
		t.Helper()
		sn, err := store.SnapshotDelta(id, w)
		if err != nil {
			t.Fatal(err)
		}
		return sn
	}
	upload := func(sn *state.Snapshot, deltas int) state.Handle {
		t.Helper()
		h, err := sn.Upload(st)
		if err != nil {
			t.Fatal(err)
		}
		if n := deltaCount(h); n != deltas {
			t.Fatalf("%d deltas, want %d", n, deltas)
		}
		return h
	}
	set(w, maxPar, 1)
	complete(1, upload(snap(1), 0))
	set(w, 1, 2)
	complete(2, upload(snap(2), 1))
	set(w, 2, 3)
	late := snap(3)
	want := maps.Clone(sub.want)
	b := store.NewBatch()
	set(b, 3, 4)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	complete(4, upload(snap(4), 0))
	h := upload(late, 2)
	md := &Metadata{ID: 3, Operators: []OperatorState{{Subtasks: []SubtaskState{{KeyGroupHi: maxPar - 1, Handle: h}}}}}
	sameData(t, "late checkpoint 3 restored", restored(t, local, st, md, 0, maxPar-1), want)
}

// TestDeltaVersion: metadata whose handles list a delta is written as
// format version 3, which older strands refuse; without one, as version
// 2, which they read. Both decode.
func TestDeltaVersion(t *testing.T) {
	for _, c := range []struct {
		name string
		want uint32
	}{{"000004.sst", 2}, {"delta-7.sst", 3}} {
		md := &Metadata{ID: 1, Job: "j", Operators: []OperatorState{{UID: "w", MaxParallelism: 128, Subtasks: []SubtaskState{{
			KeyGroupHi: 127, Handle: state.Handle{Files: []state.FileRef{{Path: "shared/x-" + c.name, Name: c.name, Size: 1, Shared: true}}}}}}}}
		b, err := encode(md)
		if err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint32(b[8:]); v != c.want {
			t.Errorf("%s: format version %d, want %d", c.name, v, c.want)
		}
		got, err := decode(b)
		if err != nil || got.Operators[0].Subtasks[0].Handle.Files[0].Name != c.name {
			t.Errorf("%s: decode = %v, %v", c.name, got, err)
		}
	}
}

// ingestingSubtask opens a window's kind of store on local, closed when
// the test ends, as the only subtask of an operator over every key group.
func ingestingSubtask(t *testing.T, local vfs.FS) (*state.Store, *subtask) {
	t.Helper()
	store, err := state.OpenIngesting(local, "/work/agg-0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store, &subtask{store: store, lo: 0, hi: maxPar - 1, want: data{}}
}
