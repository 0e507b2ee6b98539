package window

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// Rev4 review tests of a0dc9e1's rewrites (state.go's Flush).

// TestRev4RetryAcrossFirstSpill: a rewrite whose checkpoint fails (after
// or before the store took it; as a replacing commit, since nothing has
// spilled), then the aggregate spills for the first time and fires a
// window, and the next checkpoints (the retry is not a replacing commit
// any more) fail and succeed in turn: every complete checkpoint restores
// what an aggregate that neither spills nor checkpoints holds.
func TestRev4RetryAcrossFirstSpill(t *testing.T) {
	spec := mSpec()
	for _, how := range []rwFail{rwAfter, rwBefore} {
		for _, fails := range []int{1, 3} { // checkpoints failing in a row
			t.Run(fmt.Sprintf("%d/%d", how, fails), func(t *testing.T) { rev4Retry(t, spec, how, fails) })
		}
	}
}

func rev4Retry(t *testing.T, spec Spec, how rwFail, fails int) {
	j := newMJob(t, spec, 1, 160<<10, nil)
	defer j.close()
	ref := newMJob(t, spec, 1, 1<<30, nil)
	defer ref.close()
	r := rand.New(rand.NewPCG(uint64(how), uint64(fails)))
	add := func(rows []mRow) {
		j.add(rows)
		ref.add(rows)
	}
	advance := func(wm int64) {
		j.advance(wm, new([]string))
		ref.advance(wm, new([]string))
	}
	task := j.tasks[0]
	id := int64(1)
	// flush checkpoints; fail says how it ends. It reports whether the
	// Flush rewrote.
	flush := func(fail rwFail) bool {
		t.Helper()
		w := task.st.NewSorted()
		task.a.Flush(w)
		rewrite := task.a.flush.rewrite
		id++
		if fail == rwBefore {
			return rewrite
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		if fail == rwAfter {
			return rewrite
		}
		task.a.Flushed()
		c := &mCheckpoint{id: id, entries: scanTask(t, task)}
		// The restore fires what ref holds now.
		var want, got []string
		rj := newMJob(t, spec, 2, 1<<30, c)
		rj.advance(1<<62, &got)
		rj.close()
		want = refFires(t, ref)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Logf("checkpoint %d restores wrong state:", id)
			diffLines(t, got, want)
			t.FailNow()
		}
		return rewrite
	}
	small := func(n int, ts int64) []mRow {
		var rows []mRow
		for range n {
			rows = append(rows, mRow{ts: ts + int64(r.IntN(10)), k: int64(r.IntN(40)), v: int64(r.IntN(30)), s: fmt.Sprintf("s%d", r.IntN(9)), f: r.IntN(2) == 0})
		}
		return rows
	}
	// Windows 0 and 200 (mSpec's tumbling size) hold 40 groups each.
	add(small(200, 0))
	add(small(200, 200))
	flush(rwComplete)
	// Changes until a Flush rewrites: that checkpoint fails.
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("no rewrite")
		}
		add(small(5, 200))
		w := task.st.NewSorted()
		task.a.Flush(w)
		if !task.a.flush.rewrite {
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			task.a.Flushed()
			continue
		}
		if how == rwAfter {
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		break
	}
	if task.a.Spills() > 0 {
		t.Fatal("spilled before the failed rewrite")
	}
	// The first spill: many new groups in window 400.
	var rows []mRow
	for k := range 8000 {
		rows = append(rows, mRow{ts: 400, k: int64(1000 + k), v: 1, s: "x", f: true})
	}
	add(rows)
	if task.a.Spills() == 0 {
		t.Fatal("no spill")
	}
	for range fails - 1 {
		add(small(5, 200))
		if !flush(how) {
			t.Fatal("the checkpoint after a failed rewrite does not rewrite")
		}
	}
	// Window 0 fires.
	advance(199)
	add(small(5, 200))
	if !flush(rwComplete) {
		t.Fatal("the checkpoint after a failed rewrite does not rewrite")
	}
	for range 3 {
		add(small(5, 400))
		flush(rwComplete)
	}
	advance(399)
	flush(rwComplete)
}

// refFires is what ref's windows fire at the end of time, sorted, ref
// left as it was: a copy fed the same is not at hand, so ref's state is
// read through a checkpoint of its own.
func refFires(t *testing.T, ref *mJob) []string {
	t.Helper()
	task := ref.tasks[0]
	w := task.st.NewSorted()
	task.a.Flush(w)
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	task.a.Flushed()
	c := &mCheckpoint{entries: scanTask(t, task)}
	rj := newMJob(t, ref.tasks[0].a.spec, 1, 1<<30, c)
	var out []string
	rj.advance(1<<62, &out)
	rj.close()
	slices.Sort(out)
	return out
}
