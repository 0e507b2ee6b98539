package join

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

// TestJoinAgainstModel feeds random changelogs (insertions, and
// retractions of rows present) of both sides, keys with NULLs and
// duplicates, with and without a residual condition, to every kind of
// join, and checks after each batch that the changelog emitted so far,
// applied, is the join of the two sides' current rows, never taking back
// a row it did not emit. The null-aware anti join (NOT IN) runs without
// a residual condition, as NOT IN has none.
func TestJoinAgainstModel(t *testing.T) {
	for _, kind := range []Kind{Inner, LeftOuter, RightOuter, FullOuter, Semi, Anti, nullAwareAnti} {
		for _, residual := range []bool{false, true} {
			if kind == nullAwareAnti && residual {
				continue
			}
			t.Run(fmt.Sprintf("%d/residual=%v", kind, residual), func(t *testing.T) {
				for seed := range uint64(20) {
					// Without a cache, with one that evicts every few
					// rows, or with one that holds everything.
					share := []int64{0, 4 << 10, 1 << 20}[seed%3]
					modelRun(t, kind, residual, share, rand.New(rand.NewPCG(seed, 7)))
				}
			})
		}
	}
}

// nullAwareAnti stands for the null-aware anti join in the model test.
const nullAwareAnti = Anti + 1

func modelRun(t *testing.T, kind Kind, residual bool, share int64, rng *rand.Rand) {
	s := spec(min(kind, Anti))
	s.NullAware = kind == nullAwareAnti
	if kind >= Semi {
		s.Out = side
	}
	if residual { // l.v < r.v
		s.Residual = &expr.Call{Fn: expr.Lt, T: types.TBoolean, Args: []expr.Expr{
			&expr.Col{Index: 1, Name: "v", T: types.TString}, &expr.Col{Index: 3, Name: "v", T: types.TString}}}
	}
	j := openCached(t, s, nil, share)
	var present [2][]row // each side's current rows
	applied := map[string]int{}
	out := &collect{}
	for step := range 60 {
		sd := rng.IntN(2)
		var rows []row
		for range 1 + rng.IntN(4) {
			if len(present[sd]) > 0 && rng.IntN(3) == 0 {
				i := rng.IntN(len(present[sd]))
				r := present[sd][i]
				present[sd] = slices.Delete(present[sd], i, i+1)
				r.kind = []exec.RowKind{exec.Delete, exec.UpdateBefore}[rng.IntN(2)]
				rows = append(rows, r)
				continue
			}
			r := ins(int64(rng.IntN(3)), string(rune('a'+rng.IntN(3))))
			if rng.IntN(6) == 0 {
				r.k = nil
			}
			if rng.IntN(2) == 0 {
				r.kind = exec.UpdateAfter
			}
			present[sd] = append(present[sd], r)
			rows = append(rows, r)
		}
		b := batch(rows...)
		err := j.ProcessInput(exec.Side(sd), b, out)
		b.Release()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range out.take() {
			body := l[2:]
			if l[0] == '+' {
				applied[body]++
			} else if applied[body]--; applied[body] < 0 {
				t.Fatalf("step %d: %s takes back a row not emitted", step, l)
			} else if applied[body] == 0 {
				delete(applied, body)
			}
		}
		want := modelJoin(kind, residual, present)
		if !maps.Equal(applied, want) {
			t.Fatalf("step %d (%s %v): applied changelog\n  %v\nwant\n  %v", step, exec.Side(sd), rows, applied, want)
		}
	}
}

// modelJoin is the join of the sides' rows, as rendered rows and counts.
func modelJoin(kind Kind, residual bool, present [2][]row) map[string]int {
	str := func(r *row) string {
		if r == nil {
			return "null, null"
		}
		k := "null"
		if r.k != nil {
			k = fmt.Sprint(*r.k)
		}
		return k + ", " + r.v
	}
	match := func(l, r row) bool {
		return l.k != nil && r.k != nil && *l.k == *r.k && (!residual || l.v < r.v)
	}
	want := map[string]int{}
	add := func(parts ...string) { want["["+strings.Join(parts, ", ")+"]"]++ }
	if kind == nullAwareAnti {
		// l.k NOT IN (r.k ...): TRUE over no rows; else only for a
		// non-NULL l.k that no r.k equals, when no r.k is NULL.
		for _, l := range present[0] {
			keep := len(present[1]) == 0 || l.k != nil
			for _, r := range present[1] {
				if len(present[1]) > 0 && (r.k == nil || l.k != nil && *r.k == *l.k) {
					keep = false
				}
			}
			if keep {
				add(str(&l))
			}
		}
		return want
	}
	matched := make([]bool, len(present[1]))
	for _, l := range present[0] {
		any := false
		for i, r := range present[1] {
			if match(l, r) {
				any, matched[i] = true, true
				if kind < Semi {
					add(str(&l), str(&r))
				}
			}
		}
		switch {
		case kind == Semi && any, kind == Anti && !any:
			add(str(&l))
		case !any && kind.outer(0):
			add(str(&l), str(nil))
		}
	}
	if kind.outer(1) {
		for i, r := range present[1] {
			if !matched[i] {
				add(str(nil), str(&r))
			}
		}
	}
	return want
}

// TestJoinCacheWritesWhatStoreWould feeds the same random changelogs to
// a join without a cache and to joins with a small and a large one
// (state.Cache), and checks after every batch that they emit the same
// changes, in the same order, and that their stores, at every snapshot,
// hold the same entries: what the cache writes back is what the join
// wrote to its store row by row before it had one, so checkpoints,
// savepoints and rescaling see no difference.
func TestJoinCacheWritesWhatStoreWould(t *testing.T) {
	for _, kind := range []Kind{Inner, FullOuter, Semi, Anti, nullAwareAnti} {
		for seed := range uint64(4) {
			rng := rand.New(rand.NewPCG(seed, 11))
			s := spec(min(kind, Anti))
			s.NullAware = kind == nullAwareAnti
			if kind >= Semi {
				s.Out = side
			}
			shares := []int64{0, 4 << 10, 1 << 20}
			joins := make([]*Join, len(shares))
			for i, sh := range shares {
				joins[i] = openCached(t, s, nil, sh)
			}
			var present [2][]row
			for step := range 80 {
				sd := rng.IntN(2)
				var rows []row
				for range 1 + rng.IntN(6) {
					if len(present[sd]) > 0 && rng.IntN(3) == 0 {
						i := rng.IntN(len(present[sd]))
						r := present[sd][i]
						present[sd] = slices.Delete(present[sd], i, i+1)
						r.kind = exec.Delete
						rows = append(rows, r)
						continue
					}
					r := ins(int64(rng.IntN(6)), strings.Repeat(string(rune('a'+rng.IntN(4))), 1+rng.IntN(30)))
					present[sd] = append(present[sd], r)
					rows = append(rows, r)
				}
				var outs [][]string
				for _, j := range joins {
					out := &collect{}
					b := batch(rows...)
					err := j.ProcessInput(exec.Side(sd), b, out)
					b.Release()
					if err != nil {
						t.Fatal(err)
					}
					outs = append(outs, out.take())
				}
				for i := 1; i < len(outs); i++ {
					if !slices.Equal(outs[i], outs[0]) {
						t.Fatalf("kind %d seed %d step %d: cache of %d bytes emitted\n  %v\nwithout a cache\n  %v", kind, seed, step, shares[i], outs[i], outs[0])
					}
				}
				if step%20 == 19 {
					want := stored(t, joins[0], int64(step))
					for i := 1; i < len(joins); i++ {
						if got := stored(t, joins[i], int64(step)); !slices.Equal(got, want) {
							t.Fatalf("kind %d seed %d step %d: cache of %d bytes stored\n  %v\nwithout a cache\n  %v", kind, seed, step, shares[i], got, want)
						}
					}
				}
			}
		}
	}
}

// stored snapshots j and returns its store's entries.
func stored(t *testing.T, j *Join, id int64) []string {
	t.Helper()
	if _, err := j.Snapshot(id); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := j.store.Scan(j.uid, 0, 0xffff, "", func(kg uint16, name string, key, value []byte) error {
		got = append(got, fmt.Sprintf("%d/%s/%x=%x", kg, name, key, value))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}
