package window

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/types"
)

// naiveSpan is the least and greatest of tv's rows sel, one by one.
func naiveSpan(tv []arrow.Timestamp, sel []int32) (lo, hi arrow.Timestamp) {
	lo, hi = tv[sel[0]], tv[sel[0]]
	for _, r := range sel {
		lo, hi = min(lo, tv[r]), max(hi, tv[r])
	}
	return lo, hi
}

// TestTimeSpan puts the least and the greatest value at every position
// of columns of every length up to 37, so that each lane and the rows
// after the last whole four are the ones that decide.
func TestTimeSpan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 37; n++ {
		for at := range n {
			tv := make([]arrow.Timestamp, n)
			all := make([]int32, n)
			for i := range tv {
				tv[i] = arrow.Timestamp(1000 + r.Int64N(100))
				all[i] = int32(i)
			}
			for _, v := range []arrow.Timestamp{5, 5000} {
				tv[at] = v
				wlo, whi := naiveSpan(tv, all)
				if lo, hi := timeSpan(tv); lo != wlo || hi != whi {
					t.Fatalf("n=%d, %d at %d: timeSpan = %d, %d, want %d, %d", n, v, at, lo, hi, wlo, whi)
				}
				var sel []int32
				for i := range n {
					if i == at || r.IntN(2) == 0 {
						sel = append(sel, int32(i))
					}
				}
				wlo, whi = naiveSpan(tv, sel)
				if lo, hi := timeSpanOf(tv, sel); lo != wlo || hi != whi {
					t.Fatalf("n=%d, %d at %d, rows %v: timeSpanOf = %d, %d, want %d, %d", n, v, at, sel, lo, hi, wlo, whi)
				}
			}
		}
	}
}

// TestOneWindowOfShare checks oneWindow on a share of a batch that spans
// two windows: a share within one of them is in one window, with either
// scan (a small share, and one of three quarters or more of the rows).
func TestOneWindowOfShare(t *testing.T) {
	a := countSum(t)
	rows := make([]row, 16)
	for i := range rows {
		rows[i] = row{ts: int64(i), k: 1, v: 1} // windows [0, 10) and [10, 20)
	}
	b := batchOf(rows)
	defer b.Release()
	ts := b.Column(0).(*array.Timestamp)
	for _, c := range []struct {
		sel   []int32
		start int64
		one   bool
	}{
		{[]int32{0, 3, 9}, 0, true},
		{[]int32{10, 15}, 10, true},
		{[]int32{2, 12}, 2, false},
		{[]int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9}, 0, true},
		{[]int32{10, 11, 12, 13, 14, 15, 15, 15, 15, 15, 15, 15, 15}, 10, true},
		{[]int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 0, false},
	} {
		s, one := a.oneWindow(ts, c.sel, false)
		if one != c.one || one && s != c.start {
			t.Errorf("oneWindow(%v) = %d, %v; want %d, %v", c.sel, s, one, c.start, c.one)
		}
	}
	if _, one := a.oneWindow(ts, a.iota(16), true); one {
		t.Error("oneWindow of the whole batch: one window, want two")
	}
}

// BenchmarkOneWindow times oneWindow on a batch of 4 096 rows in one
// window: the whole batch, and half of it as a hash exchange's receiver
// gets at p=2 (rows picked by their hash).
func BenchmarkOneWindow(b *testing.B) {
	aggs := []agg.Call{{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}}
	a, err := New(Spec{Window: TumbleOf(10_000, 0), In: tkSchema, TimeCol: 0, Keys: []int{1}, Aggs: aggs}, memory.DefaultAllocator)
	if err != nil {
		b.Fatal(err)
	}
	rows := make([]row, 4096)
	var half []int32
	for i := range rows {
		rows[i] = row{ts: int64(i % 1000), k: int64(i), v: 1}
		if uint32(i)*2654435761>>7&1 == 0 {
			half = append(half, int32(i))
		}
	}
	batch := batchOf(rows)
	defer batch.Release()
	ts := batch.Column(0).(*array.Timestamp)
	for _, c := range []struct {
		name string
		sel  []int32
		all  bool
	}{{"all", a.iota(len(rows)), true}, {"half", half, false}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, one := a.oneWindow(ts, c.sel, c.all); !one {
					b.Fatal("not in one window")
				}
			}
		})
	}
}
