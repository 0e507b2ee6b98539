package window

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/state"
)

// Tests of Flush rewriting the checkpointed state as one replacing
// commit (state.Sorted.Replace) into an ingesting store, checkpoint after
// checkpoint with about 1% of the groups changed.

// storeCounts returns the SST files of the store's DB on fs (a virtual
// SST that a partial excise leaves keeps its whole file), and the "p"
// entries of uid "w" and the group versions they hold.
func storeCounts(t *testing.T, fs vfs.FS, dir string, st *state.Store, maxPar int) (files, entries, versions int) {
	t.Helper()
	names, err := fs.List(fs.PathJoin(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.HasSuffix(n, ".sst") {
			files++
		}
	}
	err = st.Scan("w", 0, uint16(maxPar-1), paneState, func(_ uint16, _ string, _, value []byte) error {
		n, _ := binary.Uvarint(value)
		entries++
		versions += int(n)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, entries, versions
}

// rewriteCase is a window that runRewrite checkpoints into an ingesting
// store.
type rewriteCase struct {
	name   string
	spec   Spec
	maxPar int
	keys   int
	budget int64
	hop    bool
	// fire fires the first (tumbling) window half way.
	fire bool
	// churn is the share of the groups a round changes, in 1/1000;
	// rewrites the least rewrites expected.
	churn, rewrites int
}

// rewriteCases are a tumbling window (one window fired half way), one
// with so many changes that the versions call for rewrites before
// rewriteEvery Flushes do, one with DISTINCT values, a hopping one
// (progress entries "w"), and one that spills (its spilled entries "s"
// share the store and must survive the rewrites: its window stays open,
// spilled, through them).
var rewriteCases = []rewriteCase{
	{"tumble", mSpecInts(TumbleOf(1<<30, 0)), 128, 4000, 0, false, true, 5, 0},
	// Enough changes that the versions call for rewrites before
	// rewriteEvery Flushes do.
	{"tumble/churn", mSpecInts(TumbleOf(1<<30, 0)), 128, 4000, 0, false, true, 50, 6},
	{"tumble/distinct", func() Spec { s := mSpecKeys(1); s.Window = TumbleOf(1<<30, 0); return s }(), 64, 3000, 0, false, true, 5, 0},
	{"hop", mSpecInts(Assigner{Kind: Hop, Size: 2000, Slide: 500}), 64, 3000, 0, true, false, 5, 0},
	{"tumble/spill", mSpecInts(TumbleOf(1<<30, 0)), 32, 3000, 256 << 10, false, false, 5, 0},
}

// rewriteRun is what a run of a rewriteCase found over the bounds a
// rewrite keeps: the rounds after which the store held more SST files
// or group versions than it should, or a rewrite left more than one
// SST, or the Flush after a failed rewrite did not rewrite.
type rewriteRun struct {
	over map[string][]string // by bound
}

// runRewrite checkpoints the case's window a few hundred times through a
// Sorted, with 0.5-5% of its groups changing between checkpoints and a
// checkpoint failing now and then (the first rewrite among them: its
// Sorted dropped without Commit, Flushed not called). With restore, it
// checks that rewrites happened, and that a restore from the store fires
// what the aggregate fires.
func runRewrite(t *testing.T, tc rewriteCase, restore bool) rewriteRun {
	res := rewriteRun{over: map[string][]string{}}
	r := rand.New(rand.NewPCG(uint64(tc.maxPar), uint64(tc.keys)))
	// Short mode keeps the rounds, which the rewrites need, and cuts
	// the keys.
	tc.keys, tc.budget = scaled(tc.keys, tc.keys/4), int64(scaled(int(tc.budget), int(tc.budget/4)))
	spec := tc.spec
	fs := vfs.NewMem()
	st, err := state.OpenIngesting(fs, "st")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := trackedAggregate(t, spec, tc.budget, st, tc.maxPar, 0)
	a.StoreProgress(0, tc.maxPar-1)
	defer a.Release()
	// ref gets the same rows and watermarks, and neither spills nor
	// checkpoints: what a and a restore of its store must fire, even if
	// a lost state that it shares with the store.
	ref, err := New(spec, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Release()
	advance := func(wm int64) {
		t.Helper()
		for _, x := range []*Aggregate{a, ref} {
			if err := x.Advance(wm, rowsOut(new([]string))); err != nil {
				t.Fatal(err)
			}
		}
	}
	add := func(rows []mRow) {
		t.Helper()
		b := mBatch(rows)
		defer b.Release()
		for _, x := range []*Aggregate{a, ref} {
			if _, err := x.Add(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	all := func(ts int64) {
		var rows []mRow
		for k := range tc.keys {
			rows = append(rows, mRow{ts: ts, k: int64(k), v: int64(k % 5), s: "a", f: true})
		}
		add(append(rows, mRow{ts: ts, k: -1, v: 1, s: "n", f: true}))
	}
	all(0)
	var (
		ts                      int64
		rounds                  = scaled(300, 2*rewriteEvery+10)
		rewrites, failed        int
		failedRewrite           = -1
		maxFiles, maxVersions   int
		groupsAtMax, filesRound int
		rewriteRounds           []int
		spilledAtRewrite        int // "s" entries after committed rewrites
		waited                  bool
	)
	for round := range rounds {
		if tc.fire && round == rounds/2 {
			// Window 0 fires; every key goes to window 1.
			ts = 1 << 30
			all(ts)
			advance(ts - 1)
		}
		var rows []mRow
		n := tc.keys * tc.churn / 1000
		for range n + r.IntN(n) {
			rows = append(rows, mRow{ts: ts + int64(r.IntN(10)), k: int64(r.IntN(tc.keys)), v: int64(r.IntN(30)), s: fmt.Sprintf("s%d", r.IntN(9)), f: r.IntN(2) == 0})
		}
		add(rows)
		if tc.hop && round%3 == 0 {
			ts += 2000 / 25
		}
		sorted := st.NewSorted()
		a.Flush(sorted)
		rewrite := a.flush.rewrite
		if failedRewrite >= 0 && failedRewrite == round-1 && !rewrite {
			// The store holds what it held before the failed
			// rewrite: all its versions and SSTs.
			res.over["retry"] = append(res.over["retry"], fmt.Sprintf("round %d: the checkpoint after a failed rewrite does not rewrite", round))
		}
		if rewrite {
			rewrites++
			rewriteRounds = append(rewriteRounds, round)
		}
		if rewrite && rewrites == 1 && failedRewrite < 0 || !rewrite && round%29 == 7 {
			// A failed checkpoint: nothing committed, nothing
			// forgotten.
			failed++
			if rewrite {
				failedRewrite = round
			}
			continue
		}
		if err := sorted.Commit(); err != nil {
			t.Fatal(err)
		}
		a.Flushed()
		if rewrite && tc.budget > 0 && restore {
			err := st.Scan("w", 0, uint16(tc.maxPar-1), spillState, func(uint16, string, []byte, []byte) error {
				spilledAtRewrite++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if !restore {
			groups := 0
			for _, p := range a.panes {
				groups += p.len()
			}
			files, entries, versions := storeCounts(t, fs, "st", st, tc.maxPar)
			if files > maxFiles {
				maxFiles, filesRound = files, round
			}
			if versions > maxVersions {
				maxVersions, groupsAtMax = versions, groups
			}
			// Pebble deletes the files a commit made obsolete in the
			// background: give it time before counting them against a bound.
			settle := func(ok func(int) bool) {
				for i := 0; i < 100 && !ok(files) && !waited; i++ {
					time.Sleep(5 * time.Millisecond)
					files, _, _ = storeCounts(t, fs, "st", st, tc.maxPar)
				}
				// Once over a bound after a full wait, the later rounds
				// are not waited for.
				waited = waited || !ok(files)
			}
			if rewrite {
				settle(func(n int) bool { return n == 1 })
			}
			if files > state.MaxIngested+8 {
				settle(func(n int) bool { return n <= state.MaxIngested+8 })
			}
			if rewrite && files != 1 {
				// The replacing commit swapped one SST in for every file.
				res.over["one SST"] = append(res.over["one SST"], fmt.Sprintf("round %d: a rewrite left %d SST files; want 1", round, files))
			}
			if files > state.MaxIngested+8 {
				res.over["files"] = append(res.over["files"], fmt.Sprintf("round %d: the store holds %d SST files (rewrites %d, failed rewrite at %d)", round, files, rewrites, failedRewrite))
			}
			if slack := tc.keys / 50; versions > compactAt*groups+slack {
				res.over["versions"] = append(res.over["versions"], fmt.Sprintf("round %d: the store holds %d versions of %d groups in %d entries (rewrites at %v, failed rewrite at %d)", round, versions, groups, entries, rewriteRounds, failedRewrite))
			}
		}
		if tc.hop && round%13 == 12 {
			// After the counts: the fired windows' entries go at
			// the next Flush.
			advance(ts - 1000)
		}
	}
	t.Logf("%d rounds, rewrites at %v, %d failed (a rewrite at round %d)", rounds, rewriteRounds, failed, failedRewrite)
	if !restore {
		t.Logf("at most %d SST files (round %d), %d versions (of %d groups)", maxFiles, filesRound, maxVersions, groupsAtMax)
		return res
	}
	if rewrites < max(rounds/rewriteEvery, tc.rewrites) {
		t.Errorf("%d rewrites in %d rounds", rewrites, rounds)
	}
	if failedRewrite < 0 {
		t.Errorf("no checkpoint failed at a rewrite")
	}
	if tc.budget > 0 && spilledAtRewrite == 0 {
		t.Errorf("no spilled entry in the store after a rewrite (%d spills)", a.Spills())
	}
	restoredSt, err := state.Open(vfs.NewMem(), "r")
	if err != nil {
		t.Fatal(err)
	}
	defer restoredSt.Close()
	restored := trackedAggregate(t, spec, tc.budget, restoredSt, tc.maxPar, 1)
	restored.StoreProgress(0, tc.maxPar-1)
	defer restored.Release()
	err = st.Scan("w", 0, uint16(tc.maxPar-1), "", restored.Load)
	if err == nil {
		err = restored.Restored()
	}
	if err != nil {
		t.Fatal(err)
	}
	var got, orig, want []string
	for _, x := range []struct {
		a   *Aggregate
		out *[]string
	}{{ref, &want}, {a, &orig}, {restored, &got}} {
		if err := x.a.Advance(1<<62, rowsOut(x.out)); err != nil {
			t.Fatal(err)
		}
		slices.Sort(*x.out)
	}
	if len(want) == 0 {
		t.Fatal("nothing fired")
	}
	for _, c := range []struct {
		what string
		out  []string
	}{{"the aggregate checkpointed", orig}, {"its restore", got}} {
		if !slices.Equal(c.out, want) {
			t.Errorf("%s fires other rows than an aggregate that neither spills nor checkpoints:", c.what)
			diffLines(t, c.out, want)
		}
	}
	return res
}

// TestRewriteRestore checks that checkpoints rewrite the state, and that
// the state they leave in the store, through rewrites (one failed),
// restores exactly: in every rewriteCase.
func TestRewriteRestore(t *testing.T) {
	for _, tc := range rewriteCases {
		t.Run(tc.name, func(t *testing.T) { runRewrite(t, tc, true) })
	}
}

// TestRewriteBounds checks what rewrites are for: after each checkpoint
// the store holds at most about compactAt versions per group and
// state.MaxIngested SST files; after a rewrite one SST, every older file
// swapped out; and a failed rewrite is done again by the next checkpoint,
// as the store still holds every version and file it would have dropped.
func TestRewriteBounds(t *testing.T) {
	if scaled(1, 0) == 0 {
		t.Skip("bounds, not races, and slow under the race detector")
	}
	for _, tc := range rewriteCases {
		t.Run(tc.name, func(t *testing.T) {
			res := runRewrite(t, tc, false)
			for _, bound := range slices.Sorted(maps.Keys(res.over)) {
				o := res.over[bound]
				t.Errorf("%s: %d times over the bound, the first:\n%s", bound, len(o), strings.Join(o[:min(len(o), 3)], "\n"))
			}
		})
	}
}
