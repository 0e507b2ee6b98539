package over

import (
	"strings"
	"testing"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/types"
)

func testSpec() Spec {
	in := types.Schema{{Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TBigInt}, {Name: "ts", Type: types.TTimestamp}}
	sum := agg.Call{Kind: agg.Sum, Arg: 1, Filter: -1, Out: types.TBigInt, Name: "SUM(v)"}
	return Spec{UID: "over-x", In: in, Partition: []int{0}, Time: 2, Rows: true, Preceding: 2, Aggs: []agg.Call{sum}}
}

// A savepoint of one frame or aggregate list must not restore into
// another: the kept rows and accumulators mean something else.
func TestFingerprintCoversFrameAndAggregates(t *testing.T) {
	base := testSpec()
	seen := map[string]string{base.Fingerprint(): "base"}
	for name, change := range map[string]func(*Spec){
		"range":     func(s *Spec) { s.Rows = false },
		"preceding": func(s *Spec) { s.Preceding = 3 },
		"unbounded": func(s *Spec) { s.Preceding = Unbounded },
		"partition": func(s *Spec) { s.Partition = []int{1} },
		"aggregate": func(s *Spec) { s.Aggs[0].Kind = agg.Max },
	} {
		s := testSpec()
		change(&s)
		fp := s.Fingerprint()
		if other, ok := seen[fp]; ok {
			t.Errorf("%s has the fingerprint of %s", name, other)
		}
		seen[fp] = name
	}
	if s := testSpec(); s.Fingerprint() != base.Fingerprint() {
		t.Errorf("the fingerprint of one spec changed")
	}
}

func TestNewRefusesBadSpecs(t *testing.T) {
	for name, c := range map[string]struct {
		change func(*Spec)
		want   string
	}{
		"time not a timestamp": {func(s *Spec) { s.Time = 1 }, "not a TIMESTAMP"},
		"partition by time":    {func(s *Spec) { s.Partition = []int{2} }, "also partitioned by"},
		"distinct":             {func(s *Spec) { s.Aggs[0].Distinct = true }, "DISTINCT and FILTER"},
		"negative frame":       {func(s *Spec) { s.Preceding = -5 }, "before the current row"},
		"partition twice":      {func(s *Spec) { s.Partition = []int{0, 0} }, "listed twice"},
	} {
		s := testSpec()
		c.change(&s)
		if _, err := New(s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", name, err, c.want)
		}
	}
	if _, err := New(testSpec()); err != nil {
		t.Fatal(err)
	}
}
