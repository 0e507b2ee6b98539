package checkpoint

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/state"
)

// TestIncremental checkpoints a store of 2^20 keys (2^17 under the race
// detector), changes two thousand, and checkpoints again: the second upload copies only the new
// SST (and the few small per-checkpoint files), and each checkpoint
// restores to exactly the data it was taken of.
func TestIncremental(t *testing.T) {
	rows := uint64(1 << 20)
	if raceEnabled {
		rows = 1 << 17
	}
	perKG := rows / maxPar
	const changed = 1000
	local, fs := vfs.NewMem(), vfs.NewMem()
	st := openStorage(t, fs, "/state/checkpoints/job")
	store, err := state.Open(local, "/work/agg-0")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()

	// Row i lives in key group i/perKG. Rows go in in key order, as a bulk
	// load would: flushed SSTs then do not overlap, and the compactions
	// that run between the two checkpoints move files between levels
	// instead of rewriting them. (Rewritten files are new files, which a
	// checkpoint has to copy: that is the LSM's cost, not the upload's.)
	// A discarded snapshot after each quarter of the key groups flushes
	// the memtable, as a long job's checkpoints would, so that the state
	// is several SSTs even where it fits in one memtable.
	b := store.NewBatch()
	for i := uint64(0); i < rows; i++ {
		b.Set(uid, uint16(i/perKG), "acc", keyOf(i), valueOf(i, 1))
		if i%perKG == perKG-1 {
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		if i%(rows/4) == rows/4-1 {
			sn, err := store.Snapshot(0)
			if err != nil {
				t.Fatal(err)
			}
			if err := sn.Discard(); err != nil {
				t.Fatal(err)
			}
		}
	}
	h1 := snapshot(t, store, st, 1)

	// A small change: rows 5*perKG .. +changed get version 2, and
	// changed new rows go to the end of the last key group.
	for i := uint64(5 * perKG); i < 5*perKG+changed; i++ {
		b.Set(uid, 5, "acc", keyOf(i), valueOf(i, 2))
	}
	for i := uint64(rows); i < rows+changed; i++ {
		b.Set(uid, maxPar-1, "acc", keyOf(i), valueOf(i, 2))
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	h2 := snapshot(t, store, st, 2)

	t.Logf("checkpoint 1: %d files, %d bytes, %d uploaded", len(h1.Files), h1.Size(), h1.BytesUploaded)
	t.Logf("checkpoint 2: %d files, %d bytes, %d uploaded", len(h2.Files), h2.Size(), h2.BytesUploaded)
	if h1.BytesUploaded != h1.Size() {
		t.Fatalf("first checkpoint uploaded %d of %d bytes, want all", h1.BytesUploaded, h1.Size())
	}
	if shared := countShared(h1); shared < 3 {
		t.Fatalf("state is %d SSTs; the test needs several", shared)
	}
	if h2.BytesUploaded*10 >= h2.Size() {
		t.Fatalf("second checkpoint uploaded %d of %d bytes, want < 10%%", h2.BytesUploaded, h2.Size())
	}

	// Both restore, after verification, to the data as of each checkpoint.
	for id := int64(1); id <= 2; id++ {
		md, err := st.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		r, err := state.OpenHandle(local, st, md.Operators[0].Subtasks[0].Handle, "/restore")
		if err != nil {
			t.Fatal(err)
		}
		n := uint64(0)
		err = r.Scan(uid, 0, maxPar-1, "", func(kg uint16, name string, key, value []byte) error {
			i := binary.BigEndian.Uint64(key)
			version := uint64(1)
			if id == 2 && (i >= 5*perKG && i < 5*perKG+changed || i >= rows) {
				version = 2
			}
			wantKG := min(i/perKG, maxPar-1)
			if i != n || uint64(kg) != wantKG || name != "acc" || string(value) != string(valueOf(i, version)) {
				return fmt.Errorf("entry %d: kg %d name %q key %d value %x; want kg %d key %d version %d", n, kg, name, i, value, wantKG, n, version)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatalf("checkpoint %d: %v", id, err)
		}
		want := rows
		if id == 2 {
			want += changed
		}
		if n != want {
			t.Fatalf("checkpoint %d restored %d rows, want %d", id, n, want)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot takes checkpoint id of a single-subtask job.
func snapshot(t *testing.T, store *state.Store, st *Storage, id int64) state.Handle {
	t.Helper()
	sn, err := store.Snapshot(id)
	if err != nil {
		t.Fatal(err)
	}
	h, err := sn.Upload(st)
	if err != nil {
		t.Fatal(err)
	}
	write(t, st, &Metadata{ID: id, Job: "job", Operators: []OperatorState{{
		UID: uid, MaxParallelism: maxPar,
		Subtasks: []SubtaskState{{KeyGroupHi: maxPar - 1, Handle: h}},
	}}})
	return h
}

func countShared(h state.Handle) int {
	n := 0
	for _, f := range h.Files {
		if f.Shared {
			n++
		}
	}
	return n
}
