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
					modelRun(t, kind, residual, rand.New(rand.NewPCG(seed, 7)))
				}
			})
		}
	}
}

// nullAwareAnti stands for the null-aware anti join in the model test.
const nullAwareAnti = Anti + 1

func modelRun(t *testing.T, kind Kind, residual bool, rng *rand.Rand) {
	s := spec(min(kind, Anti))
	s.NullAware = kind == nullAwareAnti
	if kind >= Semi {
		s.Out = side
	}
	if residual { // l.v < r.v
		s.Residual = &expr.Call{Fn: expr.Lt, T: types.TBoolean, Args: []expr.Expr{
			&expr.Col{Index: 1, Name: "v", T: types.TString}, &expr.Col{Index: 3, Name: "v", T: types.TString}}}
	}
	j := open(t, s, nil)
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
