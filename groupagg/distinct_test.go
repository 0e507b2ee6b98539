package groupagg

import (
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// inT is the TTL tests' input: (k BIGINT, v BIGINT, t TIMESTAMP(3)).
var inT = types.Schema{{Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TBigInt},
	{Name: "t", Type: types.Type{Kind: types.Timestamp, Precision: 3, Attr: types.RowTime}}}

// timed makes a batch of inserts of (k, v, t in seconds) triples.
func timed(t ...int64) arrow.RecordBatch {
	kb, vb := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator)
	tb := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Millisecond})
	defer kb.Release()
	defer vb.Release()
	defer tb.Release()
	for i := 0; i < len(t); i += 3 {
		kb.Append(t[i])
		vb.Append(t[i+1])
		tb.Append(arrow.Timestamp(t[i+2] * 1000))
	}
	k, v, ts := kb.NewArray(), vb.NewArray(), tb.NewArray()
	defer k.Release()
	defer v.Release()
	defer ts.Release()
	return array.NewRecordBatch(inT.Arrow(), []arrow.Array{k, v, ts}, int64(len(t)/3))
}

// distinctSpec: k, COUNT(*), COUNT(DISTINCT v), under a TTL of ttl
// seconds by the rowtime t.
func distinctSpec(ttl int64) Spec {
	big := types.TBigInt.WithNotNull(true)
	return Spec{UID: "g", In: inT, Keys: []int{0}, Aggs: []agg.Call{
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: big},
		{Kind: agg.Count, Arg: 1, Filter: -1, Distinct: true, Out: big},
	}, TTL: exec.StateTTL{TTL: state.TTL{Millis: ttl * 1000}, TimeCol: 2}}
}

func feed(t *testing.T, a *Agg, b arrow.RecordBatch) string {
	t.Helper()
	defer b.Release()
	var out lines
	if err := a.Process(b, &out); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

// Under a TTL each DISTINCT value expires on its own, as each entry of
// Flink's MapView state does: a value not counted for the TTL counts
// again while its group lives on. An expired group starts from empty,
// its values too. With a budget that evicts the cache after each batch,
// the values come back from the store (one prefix scan per group), with
// their stamps: the same results.
func TestDistinctTTL(t *testing.T) {
	small, err := memseg.NewManager(16<<10, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	for _, mem := range []*memseg.Manager{nil, small} {
		a := open(t, distinctSpec(10), mem)
		steps := []struct {
			b    arrow.RecordBatch
			want string
		}{
			{timed(1, 1, 0), "+I[1, 1, 1]"},
			{timed(1, 2, 6), "-U[1, 1, 1] +U[1, 2, 2]"},
			{timed(1, 2, 9), "-U[1, 2, 2] +U[1, 3, 2]"},
			// 1 was counted at 0 s: expired at 12 s, counted again.
			{timed(1, 1, 12), "-U[1, 3, 2] +U[1, 4, 3]"},
			// 2 was counted at 9 s: live at 18 s.
			{timed(1, 2, 18), "-U[1, 4, 3] +U[1, 5, 3]"},
			// The group was written at 18 s: gone at 28 s, values too.
			{timed(1, 1, 28, 1, 2, 28), "+I[1, 1, 1] -U[1, 1, 1] +U[1, 2, 2]"},
		}
		for i, s := range steps {
			if got := feed(t, a, s.b); got != s.want {
				t.Fatalf("mem %v, step %d: %s, want %s", mem != nil, i, got, s.want)
			}
		}
	}
}

// A sweep deletes the expired DISTINCT entries from the store with their
// groups, and a live group's expired values alone.
func TestDistinctTTLSweep(t *testing.T) {
	a := open(t, distinctSpec(10), nil)
	feed(t, a, timed(1, 1, 0, 1, 2, 0, 2, 1, 0, 2, 2, 8))
	if err := a.writeBack(a, true); err != nil {
		t.Fatal(err)
	}
	for wm := int64(11000); wm < 11000+2*exec.DefaultMaxParallelism; wm++ {
		if err := a.OnWatermark(wm, &lines{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.writes.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, want := a.storedKeys(t), 2; got != want { // group 2 and its value 2
		t.Fatalf("%d entries after the sweep, want %d", got, want)
	}
}

// storedKeys counts the store's entries.
func (a *Agg) storedKeys(t *testing.T) int {
	t.Helper()
	n := 0
	for kg := range exec.DefaultMaxParallelism {
		for _, name := range a.sweep.Names {
			if err := a.writes.ScanPrefix(a.spec.UID, uint16(kg), name, nil, func(_, _ []byte) error { n++; return nil }); err != nil {
				t.Fatal(err)
			}
		}
	}
	return n
}

// A group whose last row is taken back loses its DISTINCT values, as
// Flink's GroupAggFunction clears its state: even when the rows taken
// back were never counted, its next row starts from nothing, whether the
// group stayed cached or came back from the store.
func TestDistinctClearedWithGroup(t *testing.T) {
	s := spec(true)
	s.Aggs = []agg.Call{{Kind: agg.Count, Arg: 1, Filter: -1, Distinct: true, Out: types.TBigInt.WithNotNull(true)}}
	for _, evict := range []bool{false, true} {
		a := open(t, s, nil)
		var out lines
		for _, b := range []arrow.RecordBatch{rows(ins, 1, 5, ins, 1, 6), rows(del, 1, 7, del, 1, 8), rows(ins, 1, 5)} {
			if err := a.Process(b, &out); err != nil {
				t.Fatal(err)
			}
			b.Release()
			if evict {
				if err := a.writeBack(a, true); err != nil {
					t.Fatal(err)
				}
			}
		}
		want := lines{"+I[1, 1]", "-U[1, 1]", "+U[1, 2]", "-D[1, 2]", "+I[1, 1]"}
		if !slices.Equal(out, want) {
			t.Fatalf("evict %t: %q, want %q", evict, out, want)
		}
		if err := a.writeBack(a, false); err != nil {
			t.Fatal(err)
		}
		if err := a.writes.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := a.storedKeys(t); got != 2 { // the group and its value 5
			t.Fatalf("evict %t: %d entries stored, want 2", evict, got)
		}
	}
}

// Aggregates of one DISTINCT column share its entries; the fingerprint
// of an aggregate with DISTINCT aggregates is of the stamped layout.
func TestDistinctFingerprint(t *testing.T) {
	plain := spec(false)
	withDistinct := plain
	withDistinct.Aggs = append(slices.Clone(plain.Aggs), agg.Call{Kind: agg.Count, Arg: 1, Filter: -1, Distinct: true, Out: types.TBigInt})
	if plain.Fingerprint() != "b9c460557b0f7a1d" {
		t.Errorf("fingerprint without DISTINCT changed: %s", plain.Fingerprint())
	}
	if withDistinct.Fingerprint() == plain.Fingerprint() {
		t.Error("DISTINCT does not change the fingerprint")
	}
}

// A group with more DISTINCT values than half the budget is read value
// by value after an eviction (not loaded whole); when its last row is
// taken back (here by retractions of values it never counted, which
// leave its values' counts as they were), its values are deleted by
// prefix: the changes are those of a roomy cache.
func TestDistinctPartialLoad(t *testing.T) {
	s := spec(true)
	s.Aggs = []agg.Call{{Kind: agg.Count, Arg: 1, Filter: -1, Distinct: true, Out: types.TBigInt.WithNotNull(true)}}
	run := func(mem *memseg.Manager) lines {
		a := open(t, s, mem)
		var out lines
		batch := func(kind, from int) arrow.RecordBatch {
			var ts []int
			for v := range 40 {
				ts = append(ts, kind, 1, from+v, ins, 2+v%3, v)
			}
			return rows(ts...)
		}
		var batches []arrow.RecordBatch
		for i := range 30 {
			batches = append(batches, batch(ins, i*40))
		}
		batches = append(batches, batch(ins, 0)) // values counted before
		for i := range 31 {
			batches = append(batches, batch(del, 100000+i*40))
		}
		batches = append(batches, rows(ins, 1, 5))
		for _, b := range batches {
			if err := a.Process(b, &out); err != nil {
				t.Fatal(err)
			}
			b.Release()
		}
		return out
	}
	want := run(nil)
	small, err := memseg.NewManager(96<<10, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	got := run(small)
	if !slices.Equal(got, want) || !slices.Contains(got, "-D[1, 1200]") || got[len(got)-1] != "+I[1, 1]" {
		t.Fatalf("in 96 KiB: %d changes, ending %q; roomy: %d changes", len(got), got[max(0, len(got)-2):], len(want))
	}
}
