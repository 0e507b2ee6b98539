package bench

import (
	"fmt"
	"hash/maphash"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/connector"
	"github.com/strandsql/strand/types"
)

// A query's result is compared with its baseline's as a digest: the
// number of rows and the sum of their hashes, which does not depend on the
// order in which parallel subtasks write them. The engine's rows are
// digested by a capturing sink, the baseline's as the loop makes them; both
// pay for hashing. An updating query's changelog is applied as the sink
// digests it: a retraction (-U, -D) takes its row's hash and count back,
// so the digest is the final table's, which the baseline computes.
type digest struct {
	rows int64
	sum  uint64
}

func (d digest) String() string { return fmt.Sprintf("%d rows, hash sum %016x", d.rows, d.sum) }

// strSeed hashes strings; one seed per process, shared by the engine's
// sink and the baselines.
var strSeed = maphash.MakeSeed()

const rowSeed = 0x9e3779b97f4a7c15

// mix folds value v into row hash h (splitmix64's finalizer).
func mix(h, v uint64) uint64 {
	z := (h ^ v) + rowSeed
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// nullHash stands for a NULL value.
const nullHash = 0x6a09e667f3bcc908

// digestMode says how a capturing sink digests rows.
type digestMode uint8

const (
	// wholeRows digests every row with every column.
	wholeRows digestMode = iota
	// keyCounts digests rows (key, count, ...) as count copies of key:
	// the per-key totals of a processing-time window count, which do not
	// depend on how timing split them into windows.
	keyCounts
)

// digestColumns lists, for a query some of whose columns depend on
// timing, the columns that do not: the only ones its capturing sink and
// its baseline digest.
var digestColumns = map[string][]int{}

// captureSink digests what a job writes, instead of discarding it as the
// blackhole sink would.
type captureSink struct {
	mode digestMode
	cols []int // the columns digested, in order; nil: all
	mu   sync.Mutex
	d    digest
}

func (s *captureSink) Open(_ types.Schema, _, _ int) (exec.SinkWriter, error) {
	return &captureWriter{s: s}, nil
}

func (s *captureSink) result() digest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.d
}

type captureWriter struct {
	s      *captureSink
	d      digest
	hashes []uint64
}

func (w *captureWriter) Write(b arrow.RecordBatch) error {
	n := int(b.NumRows())
	if w.s.mode == keyCounts {
		key, ok1 := b.Column(0).(*array.Int64)
		count, ok2 := b.Column(1).(*array.Int64)
		if !ok1 || !ok2 {
			return fmt.Errorf("bench: key-count digest needs BIGINT key and count columns, got %s", b.Schema())
		}
		for i := 0; i < n; i++ {
			c := count.Value(i)
			w.d.rows += c
			w.d.sum += uint64(c) * mix(rowSeed, uint64(key.Value(i)))
		}
		return nil
	}
	h := w.hashes[:0]
	for range n {
		h = append(h, rowSeed)
	}
	w.hashes = h
	cols := b.Columns()
	if w.s.cols != nil {
		cols = make([]arrow.Array, len(w.s.cols))
		for i, c := range w.s.cols {
			cols[i] = b.Column(c)
		}
	}
	for _, col := range cols {
		if err := hashColumn(h, col); err != nil {
			return err
		}
	}
	kinds := exec.Kinds(b)
	for i, v := range h {
		if kinds != nil && kinds[i].Retracts() {
			w.d.sum -= v
			w.d.rows--
			continue
		}
		w.d.sum += v
		w.d.rows++
	}
	return nil
}

// hashColumn folds a column's values into the row hashes h; a NULL folds
// in nullHash, whatever its slot holds.
func hashColumn(h []uint64, col arrow.Array) error {
	var nulls []int
	var before []uint64
	if col.NullN() > 0 {
		for i := range h {
			if col.IsNull(i) {
				nulls, before = append(nulls, i), append(before, h[i])
			}
		}
	}
	switch a := col.(type) {
	case *array.Int64:
		for i, v := range a.Int64Values() {
			h[i] = mix(h[i], uint64(v))
		}
	case *array.Timestamp:
		for i, v := range a.TimestampValues() {
			h[i] = mix(h[i], uint64(v))
		}
	case *array.Decimal128:
		for i := range h {
			v := a.Value(i)
			h[i] = mix(mix(h[i], v.LowBits()), uint64(v.HighBits()))
		}
	case *array.String:
		for i := range h {
			h[i] = mix(h[i], maphash.String(strSeed, a.Value(i)))
		}
	default:
		return fmt.Errorf("bench: cannot digest a %s column", col.DataType())
	}
	for j, i := range nulls {
		h[i] = mix(before[j], nullHash)
	}
	return nil
}

func (w *captureWriter) Close() error {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	w.s.d.rows += w.d.rows
	w.s.d.sum += w.d.sum
	return nil
}

func (w *captureWriter) Abort() error { return nil }

// The baselines: for each query, a hand-written loop over the same bids,
// made by the generator's Go API (only the fields the query reads), that
// computes the query's result and digests it as the capturing sink digests
// the engine's. Bids come in event order, which is time order, so a
// window's result is complete when the first bid of a later window comes.

const windowSize = 10_000 // ms: the queries' 10-second tumbling windows

var baselines = map[string]func(opts map[string]string) (digest, error){
	"q0":   baselineQ0,
	"q1":   baselineQ1,
	"q2":   baselineQ2,
	"q12":  baselineQ12,
	"q12e": baselineQ12e,
	"q7w":  baselineQ7w,
	"q11":  baselineQ11,
	"q3":   baselineQ3,
	"q5":   baselineQ5,
	"q8":   baselineQ8,
	"q20":  baselineQ20,
}

const baselineBatch = 4096

// baselineQ0 passes auction, bidder, price, dateTime and extra through.
func baselineQ0(opts map[string]string) (digest, error) {
	var d digest
	err := connector.GenerateBids(opts, []string{"auction", "bidder", "price", "dateTime", "extra"}, baselineBatch, func(b *connector.Bids) error {
		for i := 0; i < b.Len; i++ {
			h := mix(mix(mix(mix(rowSeed, uint64(b.Auction[i])), uint64(b.Bidder[i])), uint64(b.Price[i])), uint64(b.DateTime[i]))
			d.sum += mix(h, maphash.Bytes(strSeed, b.Extra.At(i)))
		}
		d.rows += int64(b.Len)
		return nil
	})
	return d, err
}

// baselineQ1 converts prices to euros: 0.908 * price as DECIMAL(23, 3),
// whose unscaled value is price * 908.
func baselineQ1(opts map[string]string) (digest, error) {
	var d digest
	err := connector.GenerateBids(opts, []string{"auction", "bidder", "price", "dateTime", "extra"}, baselineBatch, func(b *connector.Bids) error {
		for i := 0; i < b.Len; i++ {
			h := mix(mix(rowSeed, uint64(b.Auction[i])), uint64(b.Bidder[i]))
			euros := b.Price[i] * 908
			h = mix(mix(h, uint64(euros)), uint64(euros>>63)) // a Decimal128's low and high words
			h = mix(h, uint64(b.DateTime[i]))
			d.sum += mix(h, maphash.Bytes(strSeed, b.Extra.At(i)))
		}
		d.rows += int64(b.Len)
		return nil
	})
	return d, err
}

// baselineQ2 keeps the bids on every 123rd auction.
func baselineQ2(opts map[string]string) (digest, error) {
	var d digest
	err := connector.GenerateBids(opts, []string{"auction", "price"}, baselineBatch, func(b *connector.Bids) error {
		for i := 0; i < b.Len; i++ {
			if b.Auction[i]%123 == 0 {
				d.sum += mix(mix(rowSeed, uint64(b.Auction[i])), uint64(b.Price[i]))
				d.rows++
			}
		}
		return nil
	})
	return d, err
}

// baselineQ12 counts bids per bidder: processing-time windows split the
// counts by timing, so only the per-bidder totals are compared.
func baselineQ12(opts map[string]string) (digest, error) {
	var d digest
	err := connector.GenerateBids(opts, []string{"bidder"}, baselineBatch, func(b *connector.Bids) error {
		for _, v := range b.Bidder {
			d.sum += mix(rowSeed, uint64(v))
		}
		d.rows += int64(b.Len)
		return nil
	})
	return d, err
}

// baselineQ12e counts bids per bidder per 10-second window of dateTime,
// each window in a map that is digested and cleared when the window ends.
func baselineQ12e(opts map[string]string) (digest, error) {
	var d digest
	counts := map[int64]int64{}
	cur := int64(-1)
	flush := func() {
		for bidder, n := range counts {
			d.sum += mix(mix(mix(mix(rowSeed, uint64(bidder)), uint64(n)), uint64(cur)), uint64(cur+windowSize))
		}
		d.rows += int64(len(counts))
		clear(counts)
	}
	err := connector.GenerateBids(opts, []string{"bidder", "dateTime"}, baselineBatch, func(b *connector.Bids) error {
		for i, ts := range b.DateTime {
			if s := ts - ts%windowSize; s != cur {
				flush()
				cur = s
			}
			counts[b.Bidder[i]]++
		}
		return nil
	})
	flush()
	return d, err
}

// baselineQ7w finds the highest price per 10-second window of dateTime.
func baselineQ7w(opts map[string]string) (digest, error) {
	var d digest
	cur, top := int64(-1), int64(0)
	flush := func() {
		if cur >= 0 {
			d.sum += mix(mix(rowSeed, uint64(top)), uint64(cur+windowSize))
			d.rows++
		}
	}
	err := connector.GenerateBids(opts, []string{"price", "dateTime"}, baselineBatch, func(b *connector.Bids) error {
		for i, ts := range b.DateTime {
			if s := ts - ts%windowSize; s != cur {
				flush()
				cur, top = s, b.Price[i]
			} else if b.Price[i] > top {
				top = b.Price[i]
			}
		}
		return nil
	})
	flush()
	return d, err
}
