package expr

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

// Figures on a shared 2-CPU linux/amd64 VM (load average 5 to 8 from other
// work), best of 3 one-second runs, millions of rows per second of wall
// time and of process CPU time, and allocations per 64k-row batch. "go"
// allocates results with Go's allocator: fresh, zeroed memory per batch, so
// the garbage collector's share shows; "pool" recycles result buffers and
// shows the evaluator's own cost. Baseline is a plain Go loop summing a
// BIGINT column, to scale the figures to another machine.
//
//	                                                    M rows/s  M rows/cpu-s  allocs
//	EvalFilter/price>1000 AND channel LIKE 'a%'/go            226    263   7
//	EvalFilter/price>1000 AND channel LIKE 'a%'/pool          279    278   5
//	EvalFilter/price>9000 AND channel LIKE '%oo%'/go          543    542   7
//	EvalFilter/price>9000 AND channel LIKE '%oo%'/pool        477    609   5
//	EvalFilter/price IN (...) OR channel = 'apple'/go         103    163   7
//	EvalFilter/price IN (...) OR channel = 'apple'/pool       121    173   5
//	EvalFilter/select (filter, SelectTrue, Take 5 columns)     73     77  41
//	EvalArith/a*0.908+b/go                                    178    172   5
//	EvalArith/a*0.908+b/pool                                 1306   1345   4
//	EvalArith/price*2+1 BIGINT/go                             177    208   7
//	EvalArith/price*2+1 BIGINT/pool                          1281   1288   5
//	EvalArith/amount+amount DECIMAL/go                         91     68   6
//	EvalArith/amount+amount DECIMAL/pool                      325    329   5
//	EvalArith/amount*0.908 DECIMAL/go                         108    112   6
//	EvalArith/amount*0.908 DECIMAL/pool                       313    312   5
//	EvalArith/CAST(price AS STRING)/go                         81     81   9
//	EvalArith/CAST(price AS STRING)/pool                      111    110   6
//	EvalArith/UPPER(channel)/go                                41     41   9
//	EvalArith/UPPER(channel)/pool                              32     47   6
//	Baseline                                                 1451   2993   0
const benchRows = 64 * 1024

// benchBatch has columns price BIGINT, channel STRING, a DOUBLE, b DOUBLE,
// amount DECIMAL(12, 2), with 1% NULLs in price and channel.
func benchBatch(b *testing.B) (arrow.RecordBatch, types.Schema) {
	r := rand.New(rand.NewSource(1))
	s := types.Schema{
		{Name: "price", Type: tL}, {Name: "channel", Type: tS},
		{Name: "a", Type: tD}, {Name: "b", Type: tD}, {Name: "amount", Type: tDec(12, 2)},
	}
	channels := []string{"apple", "Google", "Facebook", "Baidu", "amazon", "channel-42"}
	rb := array.NewRecordBuilder(memory.NewGoAllocator(), s.Arrow())
	defer rb.Release()
	for i := 0; i < benchRows; i++ {
		if r.Intn(100) == 0 {
			rb.Field(0).AppendNull()
			rb.Field(1).AppendNull()
		} else {
			rb.Field(0).(*array.Int64Builder).Append(r.Int63n(10_000))
			rb.Field(1).(*array.StringBuilder).Append(channels[r.Intn(len(channels))])
		}
		rb.Field(2).(*array.Float64Builder).Append(r.Float64() * 1000)
		rb.Field(3).(*array.Float64Builder).Append(r.Float64())
		rb.Field(4).(*array.Decimal128Builder).Append(decimalOf(r.Int63n(10_000_000)))
	}
	return rb.NewRecordBatch(), s
}

// bench evaluates e over a 64k-row batch, allocating results with Go's
// allocator (fresh, zeroed memory every batch: the garbage collector's
// work shows in the figures) and with a pool that recycles buffers (the
// evaluator's own cost).
func bench(b *testing.B, e Expr) {
	batch, s := benchBatch(b)
	defer batch.Release()
	p, err := Compile(e, s)
	if err != nil {
		b.Fatal(err)
	}
	for _, a := range []struct {
		name  string
		alloc memory.Allocator
	}{{"go", memory.NewGoAllocator()}, {"pool", &pool{free: map[int][][]byte{}}}} {
		ctx := &Ctx{Alloc: a.alloc}
		b.Run(a.name, func(b *testing.B) {
			loop(b, func() {
				out, err := p.Eval(ctx, batch)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			})
		})
	}
}

// pool is an allocator that hands freed buffers out again.
type pool struct{ free map[int][][]byte }

func (p *pool) Allocate(n int) []byte {
	if l := p.free[n]; len(l) > 0 {
		p.free[n] = l[:len(l)-1]
		return l[len(l)-1]
	}
	return make([]byte, n)
}

func (p *pool) Reallocate(n int, b []byte) []byte {
	nb := p.Allocate(n)
	copy(nb, b)
	p.Free(b)
	return nb
}

func (p *pool) Free(b []byte) { p.free[len(b)] = append(p.free[len(b)], b) }

// loop runs f b.N times and reports rows per second of wall time and, as
// the machine may be shared, of this process's CPU time.
func loop(b *testing.B, f func()) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		f()
	}
	cpu = cpuTime() - cpu
	rows := float64(b.N) * benchRows
	b.ReportMetric(rows/b.Elapsed().Seconds(), "rows/s")
	if cpu > 0 {
		b.ReportMetric(rows/cpu.Seconds(), "rows/cpu-s")
	}
}

func BenchmarkEvalFilter(b *testing.B) {
	price, channel := c(0, tL), c(1, tS)
	b.Run("price>1000 AND channel LIKE 'a%'", func(b *testing.B) {
		bench(b, call(And, tB, call(Gt, tB, price, i64(1000)), call(Like, tB, channel, str("a%"))))
	})
	b.Run("price>9000 AND channel LIKE '%oo%'", func(b *testing.B) {
		bench(b, call(And, tB, call(Gt, tB, price, i64(9000)), call(Like, tB, channel, str("%oo%"))))
	})
	b.Run("price IN (...) OR channel = 'apple'", func(b *testing.B) {
		bench(b, call(Or, tB, call(In, tB, price, i64(1), i64(10), i64(100), i64(1000)), call(Eq, tB, channel, str("apple"))))
	})
	b.Run("select", func(b *testing.B) { // filter, selection vector and Take
		batch, s := benchBatch(b)
		defer batch.Release()
		p, _ := Compile(call(And, tB, call(Gt, tB, price, i64(1000)), call(Like, tB, channel, str("a%"))), s)
		alloc := memory.NewGoAllocator()
		ctx := &Ctx{Alloc: alloc}
		var sel []int32
		loop(b, func() {
			mask, _ := p.Eval(ctx, batch)
			sel = SelectTrue(mask.(*array.Boolean), sel)
			out := Take(alloc, batch, sel)
			out.Release()
			mask.Release()
		})
	})
}

func BenchmarkEvalArith(b *testing.B) {
	a, bb := c(2, tD), c(3, tD)
	b.Run("a*0.908+b", func(b *testing.B) {
		bench(b, call(Add, tD, call(Mul, tD, a, f64(0.908)), bb))
	})
	b.Run("price*2+1 BIGINT", func(b *testing.B) {
		bench(b, call(Add, tL, call(Mul, tL, c(0, tL), i64(2)), i64(1)))
	})
	b.Run("amount+amount DECIMAL", func(b *testing.B) {
		bench(b, call(Add, tDec(13, 2), c(4, tDec(12, 2)), c(4, tDec(12, 2))))
	})
	b.Run("amount*0.908 DECIMAL", func(b *testing.B) {
		bench(b, call(Mul, tDec(16, 5), c(4, tDec(12, 2)), dec("0.908", 4, 3)))
	})
	b.Run("CAST(price AS STRING)", func(b *testing.B) {
		bench(b, &Cast{X: c(0, tL), T: tS})
	})
	b.Run("UPPER(channel)", func(b *testing.B) {
		bench(b, call(Upper, tS, c(1, tS)))
	})
}

func decimalOf(v int64) decimal128.Num { return decimal128.FromI64(v) }

// BenchmarkBaseline sums a 64k-row BIGINT column in a plain loop: the
// yardstick for reading the other figures on a given machine.
func BenchmarkBaseline(b *testing.B) {
	x := make([]int64, benchRows)
	for i := range x {
		x[i] = int64(i)
	}
	var s int64
	loop(b, func() {
		for _, v := range x {
			s += v
		}
	})
	if s == 1 {
		b.Log(s)
	}
}
