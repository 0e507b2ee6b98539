package checkpoint

import (
	"errors"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/state"
)

// TestUnchangedFilesOnce checkpoints a store three times, with a change
// before each: the OPTIONS file, the markers and the (empty) write-ahead
// log, which Pebble writes anew into every snapshot with the same bytes, are put into storage once and
// referenced by the later checkpoints, which put only their new SST and
// their MANIFEST. After Retain(1) has removed the first checkpoint, the
// last still loads and restores; a damaged reused file is refused by
// name.
func TestUnchangedFilesOnce(t *testing.T) {
	local, fs := vfs.NewMem(), vfs.NewMem()
	st := openStorage(t, fs, "/state/checkpoints/job")
	store, err := state.Open(local, "/work/agg-0")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var hs []state.Handle
	for id := int64(1); id <= 3; id++ {
		b := store.NewBatch()
		for i := uint64(0); i < 100; i++ {
			b.Set(uid, uint16(i%maxPar), "acc", keyOf(i), valueOf(i, uint64(id)))
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		hs = append(hs, snapshot(t, store, st, id))
	}
	// byName returns h's files whose names start with prefix, and for
	// "0" its logs (000002.log), not its SSTs.
	byName := func(h state.Handle, prefix string) []state.FileRef {
		var fs []state.FileRef
		for _, f := range h.Files {
			if strings.HasPrefix(f.Name, prefix) && (prefix != "0" || strings.HasSuffix(f.Name, ".log")) {
				fs = append(fs, f)
			}
		}
		return fs
	}
	for _, prefix := range []string{"OPTIONS-", "marker.", "0"} {
		first := byName(hs[0], prefix)
		if len(first) == 0 {
			t.Fatalf("checkpoint 1 has no %s file: %+v", prefix, hs[0].Files)
		}
		for i, h := range hs[1:] {
			later := byName(h, prefix)
			if len(later) != len(first) {
				t.Fatalf("checkpoint %d: %d %s files, want %d", i+2, len(later), prefix, len(first))
			}
			for j := range later {
				if later[j] != first[j] || !later[j].Shared {
					t.Errorf("checkpoint %d: %+v, want checkpoint 1's shared %+v", i+2, later[j], first[j])
				}
			}
		}
	}
	for i, h := range hs[1:] {
		for _, f := range h.Files {
			reused := false
			for _, g := range hs[0].Files {
				reused = reused || g.Path == f.Path
			}
			if !reused && !strings.HasSuffix(f.Name, ".sst") && !strings.HasPrefix(f.Name, "MANIFEST-") {
				t.Errorf("checkpoint %d put %s (%d bytes)", i+2, f.Name, f.Size)
			}
		}
	}

	if err := st.Retain(1); err != nil {
		t.Fatal(err)
	}
	md, err := st.Load(3)
	if err != nil {
		t.Fatal(err)
	}
	r, err := state.OpenHandle(local, st, md.Operators[0].Subtasks[0].Handle, "/restore")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = r.Scan(uid, 0, maxPar-1, "acc", func(kg uint16, name string, key, value []byte) error {
		n++
		return nil
	})
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil || n != 100 {
		t.Fatalf("restore of checkpoint 3: %d rows, %v; want 100", n, err)
	}

	opts := byName(hs[2], "OPTIONS-")[0]
	f, err := fs.Create(st.path(opts.Path), vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("[Version]\n")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(3); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), opts.Path) {
		t.Fatalf("Load of checkpoint 3 with %s damaged: %v; want ErrCorrupt naming it", opts.Path, err)
	}
}
