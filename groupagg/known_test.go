package groupagg

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
)

// Every key added is held; a key never added mostly is not; a set that
// outgrows its share of the budget holds every key.
func TestKnownSet(t *testing.T) {
	mem, err := memseg.NewManager(1<<20, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	k := known{mem: mem}
	rng := rand.New(rand.NewSource(1))
	var added []uint64
	for range 20000 {
		h := rng.Uint64()
		if rng.Intn(4) == 0 {
			h &= 0xffffffff // fingerprint 0
		}
		k.add(h)
		added = append(added, h)
	}
	for _, h := range added {
		if !k.mayHold(h) {
			t.Fatalf("%x added, not held", h)
		}
	}
	if k.off || mem.Used() != int64(k.charged) {
		t.Fatalf("off %v, used %d, charged %d", k.off, mem.Used(), k.charged)
	}
	misses := 0
	for range 10000 {
		if !k.mayHold(rng.Uint64()) {
			misses++
		}
	}
	if misses < 9900 {
		t.Fatalf("%d of 10000 other keys not held", misses)
	}
	for len(added) < 100000 && !k.off {
		h := rng.Uint64()
		k.add(h)
		added = append(added, h)
	}
	if !k.off || mem.Used() != 0 || !k.mayHold(rng.Uint64()) {
		t.Fatalf("past its share: off %v, used %d", k.off, mem.Used())
	}
	k.release()
}

// tally applies a changelog to a multiset of rows.
type tally map[string]int

func (m tally) Emit(b arrow.RecordBatch) error {
	defer b.Release()
	for r := range int(b.NumRows()) {
		var vals []string
		for _, c := range b.Columns() {
			vals = append(vals, c.ValueStr(r))
		}
		row := strings.Join(vals, ",")
		if exec.KindOf(b, r).Retracts() {
			m[row]--
			continue
		}
		m[row]++
	}
	return nil
}

func (m tally) rows() []string {
	var out []string
	for row, n := range m {
		if n != 0 {
			out = append(out, fmt.Sprint(row, " x", n))
		}
	}
	slices.Sort(out)
	return out
}

// A random changelog with retractions, through an operator whose memory
// holds a few groups (written back and evicted at every batch),
// checkpointed at a random point and restored at parallelism 2: the
// result is the uninterrupted roomy operator's, and every group the
// store holds is known, so no group was taken for new.
func TestKnownModel(t *testing.T) {
	for _, keys := range []int{150, 3000} { // the set on; the set dropped
		for seed := int64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprint(keys, "-", seed), func(t *testing.T) { knownModel(t, keys, seed) })
		}
	}
}

func knownModel(t *testing.T, keys int, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	var stream, live [][2]int
	kinds := []int{}
	for len(stream) < 3000 {
		if len(live) > 0 && rng.Intn(3) == 0 {
			i := rng.Intn(len(live))
			stream, kinds = append(stream, live[i]), append(kinds, del)
			live = slices.Delete(live, i, i+1)
			continue
		}
		r := [2]int{rng.Intn(keys), rng.Intn(50)}
		stream, kinds, live = append(stream, r), append(kinds, ins), append(live, r)
	}
	fs := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(fs, "cp")
	if err != nil {
		t.Fatal(err)
	}
	open := func(dir string, mem *memseg.Manager, sub, par int, restore *checkpoint.Metadata) *Agg {
		a, err := New(spec(true))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		if err := a.Open(&exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 64, MaxParallelism: exec.DefaultMaxParallelism,
			Subtask: sub, Parallelism: par, Memory: mem, Now: func() int64 { return 0 },
			Checkpoint: &exec.Checkpointing{FS: fs, WorkDir: dir, Storage: storage, Restore: restore}}); err != nil {
			t.Fatal(err)
		}
		return a
	}
	small := func() *memseg.Manager {
		m, err := memseg.NewManager(16<<10, 1<<10)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	feed := func(a *Agg, idx []int, out exec.Emitter) {
		for lo := 0; lo < len(idx); lo += 40 {
			var ts []int
			for _, i := range idx[lo:min(lo+40, len(idx))] {
				ts = append(ts, kinds[i], stream[i][0], stream[i][1])
			}
			b := rows(ts...)
			if err := a.Process(b, out); err != nil {
				t.Fatal(err)
			}
			b.Release()
		}
	}
	all := make([]int, len(stream))
	for i := range all {
		all[i] = i
	}
	want := tally{}
	feed(open("ref", nil, 0, 1, nil), all, want)

	cut := 1000 + rng.Intn(1000)
	got := tally{}
	a := open("w", small(), 0, 1, nil)
	feed(a, all[:cut], got)
	sn, err := a.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	h, err := sn.State.Upload(storage)
	if err != nil {
		t.Fatal(err)
	}
	meta := &checkpoint.Metadata{ID: 1, Operators: []checkpoint.OperatorState{{
		UID: sn.UID, Fingerprint: sn.Fingerprint, MaxParallelism: exec.DefaultMaxParallelism,
		Subtasks: []checkpoint.SubtaskState{{KeyGroupLo: sn.KeyGroupLo, KeyGroupHi: sn.KeyGroupHi, Handle: h}},
	}}}
	// Restored at parallelism 2, each row to its key's subtask.
	var subs [2]*Agg
	var parts [2][]int
	for s := range subs {
		subs[s] = open(fmt.Sprint("r", s), small(), s, 2, meta)
	}
	var enc memseg.KeyEncoder
	for _, i := range all[cut:] {
		b := rows(ins, stream[i][0], 0)
		if err := enc.Reset(b, []int{0}); err != nil {
			t.Fatal(err)
		}
		s := exec.Subtask(exec.KeyGroup(enc.Append(nil, 0), exec.DefaultMaxParallelism), exec.DefaultMaxParallelism, 2)
		b.Release()
		parts[s] = append(parts[s], i)
	}
	for s := range subs {
		feed(subs[s], parts[s], got)
		if _, err := subs[s].Snapshot(2); err != nil {
			t.Fatal(err)
		}
		stored := 0
		err := subs[s].store.Scan("g", uint16(subs[s].lo), uint16(subs[s].hi), groupName, func(_ uint16, _ string, key, _ []byte) error {
			stored++
			if !subs[s].known.mayHold(memseg.Hash(key)) {
				return fmt.Errorf("group %x stored, not known", key)
			}
			return nil
		})
		if err != nil || stored == 0 {
			t.Fatalf("subtask %d: %d groups stored: %v", s, stored, err)
		}
		if on := !subs[s].known.off; on != (keys < 500) {
			t.Fatalf("subtask %d: set on %v with %d keys", s, on, keys)
		}
	}
	if g, w := got.rows(), want.rows(); !slices.Equal(g, w) || len(w) == 0 {
		t.Fatalf("restored at parallelism 2:\n  %s\nuninterrupted:\n  %s", strings.Join(g, "\n  "), strings.Join(w, "\n  "))
	}
}
