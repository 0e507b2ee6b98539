package window

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

func sessionSpec(gap int64) Spec {
	aggs := []agg.Call{
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt},
	}
	return Spec{Window: Assigner{Kind: Session, Size: gap, Slide: gap}, In: tkSchema, TimeCol: 0, Keys: []int{1}, Aggs: aggs}
}

func newSessions(t *testing.T, gap int64) *Sessions {
	t.Helper()
	s, err := NewSessions(sessionSpec(gap), memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// advance fires s's sessions up to wm and returns them as "key start end
// count sum".
func advance(t *testing.T, s *Sessions, wm int64) []string {
	t.Helper()
	var out []string
	err := s.Advance(wm, func(b arrow.RecordBatch) error {
		defer b.Release()
		for i := 0; i < int(b.NumRows()); i++ {
			var cells []string
			for _, c := range b.Columns() {
				if ts, ok := c.(*array.Timestamp); ok {
					cells = append(cells, fmt.Sprint(int64(ts.Value(i))))
					continue
				}
				cells = append(cells, c.ValueStr(i))
			}
			out = append(out, strings.Join(cells, " "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func add(t *testing.T, s *Sessions, rows []row) int64 {
	t.Helper()
	b := batchOf(rows)
	defer b.Release()
	late, err := s.Add(b)
	if err != nil {
		t.Fatal(err)
	}
	return late
}

func TestSessionsMerge(t *testing.T) {
	s := newSessions(t, 10)
	// Key 1: 0 and 10 touch ([0, 10) and [10, 20)); key 2: 40 and 51 are
	// apart until 49 bridges them, in the same batch and in the next.
	add(t, s, []row{{0, 1, 1}, {10, 1, 2}, {40, 2, 1}, {51, 2, 2}})
	if got := s.Pending(); got != 3 {
		t.Fatalf("%d sessions, want 3", got)
	}
	add(t, s, []row{{49, 2, 4}, {35, 1, 8}, {-5, -1, 3}})
	if got := s.Pending(); got != 4 {
		t.Fatalf("%d sessions after the bridge, want 4", got)
	}
	// Nothing fires until the watermark passes an end: [0, 20) at 21.
	if got := advance(t, s, 20); len(got) != 1 || got[0] != "(null) -5 5 1 3" {
		t.Fatalf("at 20: %q", got)
	}
	if got := advance(t, s, 21); !slices.Equal(got, []string{"1 0 20 2 3"}) {
		t.Fatalf("at 21: %q", got)
	}
	// A row before the watermark is late; one at it is not.
	if late := add(t, s, []row{{20, 3, 1}, {21, 3, 1}}); late != 1 {
		t.Fatalf("%d late, want 1", late)
	}
	want := []string{"1 35 45 1 8", "3 21 31 1 1", "2 40 61 3 7"}
	sort.Strings(want)
	got := advance(t, s, types.MaxWatermark)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Fatalf("at the end: %q, want %q", got, want)
	}
	if s.Pending() != 0 {
		t.Fatalf("%d sessions left", s.Pending())
	}
}

// memWriter is a state store for Flush: entries by key group and key.
type memWriter map[string][]byte

func memKey(kg uint16, key []byte) string { return fmt.Sprintf("%05d/%x", kg, key) }

func (m memWriter) Set(_ string, kg uint16, name string, key, value []byte) {
	m[memKey(kg, key)] = append([]byte(name+"|"), value...)
}

func (m memWriter) Delete(_ string, kg uint16, _ string, key []byte) { delete(m, memKey(kg, key)) }

// sessionRef computes the sessions of rows by a plain merge of sorted
// times per key: "key start end count sum".
func sessionRef(rows []row, gap int64) []string {
	byKey := map[int64][]row{}
	for _, r := range rows {
		byKey[r.k] = append(byKey[r.k], r)
	}
	var out []string
	for k, rs := range byKey {
		sort.Slice(rs, func(i, j int) bool { return rs[i].ts < rs[j].ts })
		key := fmt.Sprint(k)
		if k < 0 {
			key = "(null)"
		}
		for i := 0; i < len(rs); {
			start, end, n, sum := rs[i].ts, rs[i].ts+gap, 0, int64(0)
			for ; i < len(rs) && rs[i].ts <= end; i++ {
				end = max(end, rs[i].ts+gap)
				n++
				sum += rs[i].v
			}
			out = append(out, fmt.Sprintf("%s %d %d %d %d", key, start, end, n, sum))
		}
	}
	sort.Strings(out)
	return out
}

// TestSessionsCheckpointRescale runs random rows through a job of
// parallelism p that checkpoints (Flush) between batches, then restores
// the last checkpoint at parallelism q from the key groups of each new
// subtask, replays what came after, and checks that every session is
// emitted exactly as a plain merge computes it.
func TestSessionsCheckpointRescale(t *testing.T) {
	const kgs, gap = 16, 50
	kgOf := func(key []byte) uint16 { return uint16(memseg.Hash(key) % kgs) }
	r := rand.New(rand.NewPCG(3, 4))
	var rows []row
	for i := range 2000 {
		rows = append(rows, row{ts: int64(i)/2 + r.Int64N(40), k: r.Int64N(30) - 1, v: r.Int64N(100)})
	}
	// The watermark trails the rows by 40: none is late.
	subtask := func(key []byte, p int) int { return int(kgOf(key)) * p / kgs }
	run := func(p int, restore memWriter, from, to int, cut bool) (out []string, cp memWriter) {
		tasks := make([]*Sessions, p)
		for i := range tasks {
			tasks[i] = newSessions(t, gap)
			tasks[i].Track()
			tasks[i].UseStore(nil, "u", kgs)
		}
		for k, v := range restore {
			var kg uint16
			var hexKey string
			fmt.Sscanf(k, "%05d/%s", &kg, &hexKey)
			key := []byte{}
			fmt.Sscanf(hexKey, "%x", &key)
			name, value, _ := strings.Cut(string(v), "|")
			if err := tasks[int(kg)*p/kgs].Load(kg, name, key, []byte(value)); err != nil {
				t.Fatal(err)
			}
		}
		cp = memWriter{}
		var enc memseg.KeyEncoder
		for lo := from; lo < to; lo += 100 {
			batch := rows[lo:min(lo+100, to)]
			b := batchOf(batch)
			if err := enc.Reset(b, []int{1}); err != nil {
				t.Fatal(err)
			}
			parts := make([][]row, p)
			for i, rw := range batch {
				key := enc.Append(nil, i)
				parts[subtask(key, p)] = append(parts[subtask(key, p)], rw)
			}
			b.Release()
			maxTs := int64(0)
			for _, rw := range rows[:lo+len(batch)] {
				maxTs = max(maxTs, rw.ts)
			}
			for i, task := range tasks {
				if len(parts[i]) > 0 {
					if late := add(t, task, parts[i]); late != 0 {
						t.Fatalf("%d late rows", late)
					}
				}
				out = append(out, advance(t, task, maxTs-40)...)
				task.Flush(cp)
				task.Flushed()
			}
			if cut && lo+100 >= to {
				return out, cp
			}
		}
		for _, task := range tasks {
			out = append(out, advance(t, task, types.MaxWatermark)...)
			task.Release()
		}
		return out, cp
	}
	want := sessionRef(rows, gap)
	for _, pq := range [][2]int{{1, 1}, {2, 3}, {4, 1}} {
		t.Run(fmt.Sprintf("p%d-to-p%d", pq[0], pq[1]), func(t *testing.T) {
			// A checkpoint after 1200 rows holds what the sessions fired so
			// far did not: the committed output is that, then the rest.
			first, cp := run(pq[0], nil, 0, 1200, true)
			rest, _ := run(pq[1], cp, 1200, len(rows), false)
			got := append(first, rest...)
			sort.Strings(got)
			if !slices.Equal(got, want) {
				t.Fatalf("%d sessions, want %d; first differences:\n%s", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("at %d: got %s, want %s", i, got[i], want[i])
		}
	}
	return "one is a prefix of the other"
}

// TestSessionsCompact: keys whose sessions have all fired leave the key
// table once they are most of it, and the sessions of the rest go on.
func TestSessionsCompact(t *testing.T) {
	s := newSessions(t, 5)
	var rows []row
	for k := range int64(3000) {
		rows = append(rows, row{ts: k, k: k, v: 1})
	}
	add(t, s, rows)
	add(t, s, []row{{2990, 7, 1}})
	if n := len(advance(t, s, 2900)); n != 2895 {
		t.Fatalf("%d sessions fired, want 2895", n)
	}
	if len(s.addrs) >= 3000 || s.table.Len() != len(s.addrs) {
		t.Fatalf("%d keys in the table after compaction (%d entries)", len(s.addrs), s.table.Len())
	}
	add(t, s, []row{{2993, 7, 1}})
	got := advance(t, s, types.MaxWatermark)
	if !slices.Contains(got, "7 2990 2998 2 2") || len(got) != 106 {
		t.Fatalf("after compaction: %d sessions, key 7's missing: %q", len(got), got[:min(5, len(got))])
	}
}

func TestSessionsMemory(t *testing.T) {
	s := newSessions(t, 5)
	m, err := memseg.NewManager(64<<10, 16<<10)
	if err != nil {
		t.Fatal(err)
	}
	s.UseMemory(m)
	var rows []row
	for k := range int64(20000) {
		rows = append(rows, row{ts: 0, k: k, v: 1})
	}
	b := batchOf(rows)
	defer b.Release()
	if _, err := s.Add(b); !errors.Is(err, ErrMemory) {
		t.Fatalf("got %v, want ErrMemory", err)
	}
	s.Release()
	if m.Used() != 0 {
		t.Fatalf("%d bytes still used", m.Used())
	}
}

func TestSessionsLoadCorrupt(t *testing.T) {
	s := newSessions(t, 5)
	s.Track()
	s.UseStore(nil, "u", 1)
	add(t, s, []row{{0, 1, 1}, {20, 1, 1}})
	w := memWriter{}
	s.Flush(w)
	var good []byte
	var key []byte
	for k, v := range w {
		_, hexKey, _ := strings.Cut(k, "/")
		fmt.Sscanf(hexKey, "%x", &key)
		good = v[len(sessionState)+1:]
	}
	for i := range good {
		bad := slices.Clone(good[:i])
		if err := newSessions(t, 5).Load(0, sessionState, key, bad); !errors.Is(err, ErrCorrupt) && !errors.Is(err, agg.ErrCorrupt) {
			t.Fatalf("truncated at %d: %v", i, err)
		}
	}
	if err := newSessions(t, 5).Load(0, sessionState, key, good); err != nil {
		t.Fatal(err)
	}
	if err := newSessions(t, 5).Load(0, "p", key, good); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("unknown state: %v", err)
	}
}
