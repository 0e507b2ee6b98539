package exec

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScratchSweep: a run's scratch directory is made on first use, apart
// from a concurrent run's; Sweep removes what dead runs left and keeps
// live runs' directories; Remove deletes the directory and its lock.
func TestScratchSweep(t *testing.T) {
	work := t.TempDir()
	a, b := &Scratch{Parent: work}, &Scratch{Parent: work}
	da, err := a.Dir()
	if err != nil {
		t.Fatal(err)
	}
	db, err := b.Dir()
	if err != nil || db == da {
		t.Fatalf("second run's dir %s, %v; first's %s", db, err, da)
	}
	if again, _ := a.Dir(); again != da {
		t.Errorf("Dir changed: %s then %s", da, again)
	}
	// What a kill -9 leaves: a directory whose lock nobody holds, and a
	// lock file without a directory.
	dead := filepath.Join(work, "run-dead")
	for _, p := range []string{filepath.Join(dead, "spill-1", "000001.sst"), filepath.Join(work, "run-gone.lock"), filepath.Join(work, "w-0", "MANIFEST")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := func() []string {
		es, _ := os.ReadDir(work)
		var n []string
		for _, e := range es {
			n = append(n, e.Name())
		}
		return n
	}
	live := []string{filepath.Base(da), filepath.Base(da) + ".lock", filepath.Base(db), filepath.Base(db) + ".lock"}
	if err := Sweep(work, false); err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, sorted(append(slices.Clone(live), "w-0"))) {
		t.Errorf("after Sweep: %v", got)
	}
	if err := Sweep(work, true); err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, sorted(live)) {
		t.Errorf("after Sweep(all): %v", got)
	}
	if err := a.Remove(); err != nil {
		t.Fatal(err)
	}
	if err := b.Remove(); err != nil {
		t.Fatal(err)
	}
	if got := names(); len(got) != 0 {
		t.Errorf("after Remove: %v", got)
	}
}

func sorted(s []string) []string { slices.Sort(s); return s }
