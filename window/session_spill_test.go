package window

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// distinctSessionSpec is sessionSpec with COUNT(DISTINCT v), SUM(DISTINCT
// v) and MAX(v) besides COUNT(*) and SUM(v).
func distinctSessionSpec(gap int64) Spec {
	spec := sessionSpec(gap)
	spec.Aggs = append(spec.Aggs,
		agg.Call{Kind: agg.Count, Arg: 2, Filter: -1, Distinct: true, Out: types.TBigInt},
		agg.Call{Kind: agg.Sum, Arg: 2, Filter: -1, Distinct: true, Out: types.TBigInt},
		agg.Call{Kind: agg.Max, Arg: 2, Filter: -1, Out: types.TBigInt})
	return spec
}

// distinctSessionRef is sessionRef for distinctSessionSpec: "key start end
// count sum distinct-count distinct-sum max".
func distinctSessionRef(rows []row, gap int64) []string {
	byKey := map[int64][]row{}
	for _, r := range rows {
		byKey[r.k] = append(byKey[r.k], r)
	}
	var out []string
	for k, rs := range byKey {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].ts < rs[j].ts })
		key := fmt.Sprint(k)
		if k < 0 {
			key = "(null)"
		}
		for i := 0; i < len(rs); {
			start, end, n, sum, mx := rs[i].ts, rs[i].ts+gap, 0, int64(0), rs[i].v
			seen := map[int64]bool{}
			dsum := int64(0)
			for ; i < len(rs) && rs[i].ts <= end; i++ {
				end = max(end, rs[i].ts+gap)
				n++
				sum += rs[i].v
				mx = max(mx, rs[i].v)
				if !seen[rs[i].v] {
					seen[rs[i].v] = true
					dsum += rs[i].v
				}
			}
			out = append(out, fmt.Sprintf("%s %d %d %d %d %d %d %d", key, start, end, n, sum, len(seen), dsum, mx))
		}
	}
	sort.Strings(out)
	return out
}

// sessionRows makes n rows over keys (and NULL), times disordered by up to
// lag behind the greatest so far, values 0..9.
func sessionRows(r *rand.Rand, n, keys int, lag int64) []row {
	rows := make([]row, n)
	maxTs := int64(0)
	for i := range rows {
		maxTs += r.Int64N(3)
		rows[i] = row{ts: maxTs - r.Int64N(lag), k: r.Int64N(int64(keys)+1) - 1, v: r.Int64N(10)}
	}
	return rows
}

// sessionJob runs a Sessions per subtask over key groups kgs, each with
// its own memory budget and state store, checkpointing into the store.
type sessionJob struct {
	t     *testing.T
	tasks []*Sessions
	mems  []*memseg.Manager
	sts   []*state.Store
	enc   memseg.KeyEncoder
}

const sessionKGs = 16

func sessionKG(key []byte) uint16 { return uint16(memseg.Hash(key) % sessionKGs) }

func newSessionJob(t *testing.T, spec Spec, p int, budget int64, restore []stateEntry) *sessionJob {
	t.Helper()
	j := &sessionJob{t: t}
	for i := range p {
		m, err := memseg.NewManager(budget, 1<<10)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewSessions(spec, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		s.UseMemory(m)
		s.Track()
		st, err := state.Open(vfs.NewMem(), "st")
		if err != nil {
			t.Fatal(err)
		}
		s.UseStore(func() (*state.Store, error) { return st, nil }, "u", sessionKGs)
		for _, e := range restore {
			if int(e.kg)*p/sessionKGs == i {
				if err := s.Load(e.kg, e.name, e.key, e.value); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := s.Restored(); err != nil {
			t.Fatal(err)
		}
		j.tasks, j.mems, j.sts = append(j.tasks, s), append(j.mems, m), append(j.sts, st)
	}
	return j
}

type stateEntry struct {
	kg         uint16
	name       string
	key, value []byte
}

// add routes rows to the subtasks of their key groups, in batches of n.
func (j *sessionJob) add(rows []row, n int) {
	for lo := 0; lo < len(rows); lo += n {
		batch := rows[lo:min(lo+n, len(rows))]
		b := batchOf(batch)
		if err := j.enc.Reset(b, []int{1}); err != nil {
			j.t.Fatal(err)
		}
		parts := make([][]row, len(j.tasks))
		for i, r := range batch {
			p := int(sessionKG(j.enc.Append(nil, i))) * len(j.tasks) / sessionKGs
			parts[p] = append(parts[p], r)
		}
		b.Release()
		for i, part := range parts {
			if len(part) > 0 {
				if late := add(j.t, j.tasks[i], part); late != 0 {
					j.t.Fatalf("%d late rows", late)
				}
			}
		}
	}
}

func (j *sessionJob) advance(wm int64) []string {
	var out []string
	for _, s := range j.tasks {
		out = append(out, advance(j.t, s, wm)...)
	}
	return out
}

// checkpoint flushes every subtask into its store and returns what the
// stores hold: a snapshot, as a restore reads it.
func (j *sessionJob) checkpoint() []stateEntry {
	var out []stateEntry
	for i, s := range j.tasks {
		b := j.sts[i].NewBatch()
		s.Flush(b)
		if err := b.Commit(); err != nil {
			j.t.Fatal(err)
		}
		s.Flushed()
		err := j.sts[i].Scan("u", 0, sessionKGs-1, "", func(kg uint16, name string, key, value []byte) error {
			out = append(out, stateEntry{kg: kg, name: name, key: slices.Clone(key), value: slices.Clone(value)})
			return nil
		})
		if err != nil {
			j.t.Fatal(err)
		}
	}
	return out
}

func (j *sessionJob) spills() (n int64) {
	for _, s := range j.tasks {
		n += s.Spills()
	}
	return n
}

func (j *sessionJob) release() {
	for i, s := range j.tasks {
		s.Release()
		if j.mems[i].Used() != 0 {
			j.t.Errorf("subtask %d: %d bytes still used after Release", i, j.mems[i].Used())
		}
		j.sts[i].Close()
	}
}

// TestSessionsSpillExact: sessions (with DISTINCT aggregates) whose state
// is many times the memory budget spill, fire from the store and from
// memory, and come back; at parallelism 1, 2 and 4, one checkpoint taken
// between batches is restored at another parallelism and the rest
// replayed, and the output is the plain merge's, whatever the budget.
func TestSessionsSpillExact(t *testing.T) {
	const gap, lag = 400, 150
	rows := sessionRows(rand.New(rand.NewPCG(5, 6)), scaled(30000, 8000), 400, lag)
	want := distinctSessionRef(rows, gap)
	if len(want) > len(rows)/2 || len(want) < len(rows)/20 {
		t.Fatalf("%d sessions of %d rows: too few merge, or too few sessions", len(want), len(rows))
	}
	spec := distinctSessionSpec(gap)
	cut := len(rows) * 17 / 30 / 1000 * 1000
	for _, c := range []struct {
		p, q, batch int
		budget      int64
	}{{1, 1, 4096, 64 << 20}, {1, 1, 4096, 24 << 10}, {2, 4, 97, 24 << 10}, {4, 2, 1, 32 << 10}, {2, 1, 500, 64 << 20}} {
		t.Run(fmt.Sprintf("p%d-to-p%d-batch%d-mem%d", c.p, c.q, c.batch, c.budget), func(t *testing.T) {
			spec := spec
			spec.BatchSize = 7
			wm := func(upTo int) int64 {
				m := int64(0)
				for _, r := range rows[:upTo] {
					m = max(m, r.ts)
				}
				return m - lag
			}
			first := newSessionJob(t, spec, c.p, c.budget, nil)
			var got []string
			for lo := 0; lo < cut; lo += 1000 {
				first.add(rows[lo:lo+1000], c.batch)
				got = append(got, first.advance(wm(lo+1000))...)
			}
			cp := first.checkpoint()
			spilled := first.spills()
			first.release()
			rest := newSessionJob(t, spec, c.q, c.budget, cp)
			for lo := cut; lo < len(rows); lo += 1000 {
				rest.add(rows[lo:min(lo+1000, len(rows))], c.batch)
				got = append(got, rest.advance(wm(min(lo+1000, len(rows))))...)
			}
			got = append(got, rest.advance(types.MaxWatermark)...)
			spilled += rest.spills()
			for _, s := range rest.tasks {
				if s.Pending() != 0 || s.spill.keys != 0 {
					t.Errorf("%d sessions and %d spilled keys left", s.Pending(), s.spill.keys)
				}
			}
			rest.release()
			t.Logf("%d spills", spilled)
			if c.budget < 1<<20 && spilled < 10 {
				t.Errorf("%d spills: the state fit in memory, the case tests less than it says", spilled)
			}
			sort.Strings(got)
			if !slices.Equal(got, want) {
				t.Fatalf("%d sessions, want %d; first difference %s", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

// TestSessionsKeyLargerThanMemory: a key whose open sessions (the
// watermark stands still) outgrow the whole budget still takes rows, into
// its entry in the store, and its sessions, merged by later rows, fire
// exactly.
func TestSessionsKeyLargerThanMemory(t *testing.T) {
	const gap = 40
	var rows []row
	n := int64(scaled(300, 120))
	for i := range n {
		rows = append(rows, row{ts: i * 100, k: 7, v: i % 10})
	}
	// Rows that bridge session i and i+1 for every 7th i, and another
	// key's.
	for i := int64(0); i < n; i += 7 {
		rows = append(rows, row{ts: i*100 + 40, k: 7, v: 3}, row{ts: i*100 + 80, k: 7, v: 11}, row{ts: i * 100, k: 8, v: i})
	}
	want := distinctSessionRef(rows, gap)
	if len(want) < int(n)*5/6 {
		t.Fatalf("%d sessions: the key has too few", len(want))
	}
	j := newSessionJob(t, distinctSessionSpec(gap), 1, 16<<10, nil)
	j.add(rows, 64)
	got := j.advance(types.MaxWatermark)
	if j.spills() == 0 {
		t.Fatal("no spills: the key fit in memory")
	}
	j.release()
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Fatalf("%d sessions, want %d; first difference %s", len(got), len(want), firstDiff(got, want))
	}
}
