package checkpoint

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// tryCheckpoint is checkpoint then Write, returning the first error
// instead of failing the test, and the data each subtask snapshotted.
func tryCheckpoint(st *Storage, id int64, subs []*subtask) ([]data, error) {
	md := &Metadata{ID: id, Job: "job"}
	op := OperatorState{UID: uid, MaxParallelism: maxPar}
	var snaps []data
	for i, s := range subs {
		sn, err := s.store.Snapshot(id)
		if err != nil {
			return nil, err
		}
		snaps = append(snaps, maps.Clone(s.want))
		h, err := sn.Upload(st)
		if err != nil {
			return nil, err
		}
		op.Subtasks = append(op.Subtasks, SubtaskState{Index: i, KeyGroupLo: int(s.lo), KeyGroupHi: int(s.hi), Handle: h})
	}
	md.Operators = []OperatorState{op}
	return snaps, st.Write(md)
}

// checkLatest opens the storage at root on fs afresh, as a restarted job
// would, and checks that Latest returns a checkpoint no older than
// complete, that verifies and restores to exactly the data snapshotted
// for it. It returns that checkpoint's ID, 0 for none.
func checkLatest(t *testing.T, fs, local vfs.FS, root string, complete int64, snaps map[int64][]data, subs []*subtask) int64 {
	t.Helper()
	st, err := OpenStorage(fs, root)
	if err != nil {
		t.Fatal(err)
	}
	md, err := st.Latest(nil)
	if err != nil {
		t.Fatalf("Latest: %v", err)
	}
	switch {
	case md == nil && complete > 0:
		t.Fatalf("checkpoint %d completed, Latest found none", complete)
	case md == nil:
		return 0
	case md.ID < complete:
		t.Fatalf("checkpoint %d completed, Latest returned %d", complete, md.ID)
	}
	for i, s := range subs {
		sameData(t, fmt.Sprintf("checkpoint %d", md.ID), restored(t, local, st, md, s.lo, s.hi), snaps[md.ID][i])
	}
	return md.ID
}

// TestWriteFaults fails one write operation (create, write, sync, close,
// rename, mkdir, remove) of checkpoint storage at a time, at every point
// of a checkpoint's upload, its Write and the Retain after it, and also
// fails every write from that point on, as a full or dead disk would.
// Afterwards the newest checkpoint must verify and restore exactly, and a
// checkpoint whose Write succeeded must be it.
func TestWriteFaults(t *testing.T) {
	local := vfs.NewMem()
	subs := []*subtask{openSubtask(t, local, "/w/0", 0, 63), openSubtask(t, local, "/w/1", 64, 127)}
	version := uint64(0)
	for _, sticky := range []bool{false, true} {
		for k := 1; ; k++ {
			var (
				mu      sync.Mutex
				armed   bool
				n       int
				tripped bool
			)
			inj := errorfs.InjectorFunc(func(op errorfs.Op) error {
				mu.Lock()
				defer mu.Unlock()
				if !armed || op.Kind.ReadOrWrite() != errorfs.OpIsWrite {
					return nil
				}
				if n++; n == k || sticky && n > k {
					tripped = true
					return errorfs.ErrInjected
				}
				return nil
			})
			mem := vfs.NewMem()
			st := openStorage(t, errorfs.Wrap(mem, inj), "/ck")
			snaps := map[int64][]data{}
			version++
			change(t, subs[0], 3, version)
			change(t, subs[1], 3, version)
			s, err := tryCheckpoint(st, 1, subs)
			if err != nil {
				t.Fatal(err)
			}
			snaps[1] = s

			mu.Lock()
			armed = true
			mu.Unlock()
			change(t, subs[0], 2, version+1000)
			s, err = tryCheckpoint(st, 2, subs)
			snaps[2] = s
			complete := int64(1)
			if err == nil {
				complete = 2
				err = st.Retain(1)
			}
			mu.Lock()
			armed = false
			mu.Unlock()
			if err != nil && !errors.Is(err, errorfs.ErrInjected) {
				t.Fatalf("k=%d sticky=%v: %v", k, sticky, err)
			}
			checkLatest(t, mem, local, "/ck", complete, snaps, subs)
			if !tripped {
				t.Logf("sticky=%v: failed at each of %d write operations", sticky, k-1)
				break
			}
		}
	}
}

// TestPowerLoss takes two checkpoints with Retain(1) after each, and
// simulates a power loss before every single file system operation of
// that run: a crash clone of checkpoint storage holding only what was
// synced (and, in a second pass, a random half of what was not). On each
// clone the newest checkpoint must verify and restore exactly, and be no
// older than the last one whose Write had returned.
func TestPowerLoss(t *testing.T) {
	for _, unsynced := range []int{0, 50} {
		local := vfs.NewMem()
		subs := []*subtask{openSubtask(t, local, fmt.Sprintf("/w%d/0", unsynced), 0, 63), openSubtask(t, local, fmt.Sprintf("/w%d/1", unsynced), 64, 127)}
		crash := vfs.NewCrashableMem()
		type clone struct {
			fs       vfs.FS
			complete int64
		}
		var (
			mu       sync.Mutex
			clones   []clone
			complete int64
			rng      = rand.New(rand.NewPCG(1, uint64(unsynced)))
		)
		inj := errorfs.InjectorFunc(func(op errorfs.Op) error {
			mu.Lock()
			defer mu.Unlock()
			cfg := vfs.CrashCloneCfg{}
			if unsynced > 0 {
				cfg = vfs.CrashCloneCfg{UnsyncedDataPercent: unsynced, RNG: rng}
			}
			clones = append(clones, clone{crash.CrashClone(cfg), complete})
			return nil
		})
		st := openStorage(t, errorfs.Wrap(crash, inj), "/state/checkpoints/job")
		snaps := map[int64][]data{}
		for id := int64(1); id <= 2; id++ {
			change(t, subs[0], 3, uint64(id))
			change(t, subs[1], 3, uint64(id))
			s, err := tryCheckpoint(st, id, subs)
			if err != nil {
				t.Fatal(err)
			}
			snaps[id] = s
			mu.Lock()
			complete = id
			mu.Unlock()
			if err := st.Retain(1); err != nil {
				t.Fatal(err)
			}
		}
		clones = append(clones, clone{crash.CrashClone(vfs.CrashCloneCfg{}), complete})
		// outcomes counts, by checkpoints completed before the power loss,
		// the checkpoint found after it.
		outcomes := map[[2]int64]int{}
		for _, c := range clones {
			outcomes[[2]int64{c.complete, checkLatest(t, c.fs, local, "/state/checkpoints/job", c.complete, snaps, subs)}]++
		}
		t.Logf("unsynced %d%%: %d power losses; (completed, found): count %v", unsynced, len(clones), outcomes)
		// Every stage was hit: before 1, during 2 (1 found), after 2.
		for _, o := range [][2]int64{{0, 0}, {1, 1}, {2, 2}} {
			if outcomes[o] == 0 {
				t.Errorf("no power loss with %d complete and %d found", o[0], o[1])
			}
		}
	}
}

// TestLatestReadError: a checkpoint that cannot be read now is not
// corrupt, and Latest does not fall back past it.
func TestLatestReadError(t *testing.T) {
	local, mem := vfs.NewMem(), vfs.NewMem()
	sub := openSubtask(t, local, "/w", 0, 127)
	change(t, sub, 3, 1)
	st := openStorage(t, mem, "/ck")
	for id := int64(1); id <= 2; id++ {
		if _, err := tryCheckpoint(st, id, []*subtask{sub}); err != nil {
			t.Fatal(err)
		}
	}
	failing := errorfs.InjectorFunc(func(op errorfs.Op) error {
		if op.Kind == errorfs.OpFileRead {
			return errorfs.ErrInjected
		}
		return nil
	})
	st = openStorage(t, errorfs.Wrap(mem, failing), "/ck")
	md, err := st.Latest(func(n int64, err error) { t.Errorf("reported %d: %v", n, err) })
	if md != nil || !errors.Is(err, errorfs.ErrInjected) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("Latest = %v, %v; want the read error, not ErrCorrupt", md, err)
	}
}
