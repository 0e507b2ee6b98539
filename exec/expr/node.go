package expr

import (
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/types"
)

// phys is how the values of a SQL type are laid out in a vec.
type phys uint8

const (
	pNull phys = iota // no values: every row is NULL
	pBool             // one bit per row
	pI32              // INT, DATE, INTERVAL YEAR TO MONTH
	pI64              // BIGINT, TIMESTAMP, TIMESTAMP_LTZ, INTERVAL DAY TO SECOND
	pF32
	pF64
	pDec  // decimal128.Num
	pStr  // int32 offsets into UTF-8 bytes
	pNest // ROW, ARRAY, MAP: the Arrow array itself, in vec.nest (nested.go)
)

func physOf(t types.Type) phys {
	switch t.Kind {
	case types.Boolean:
		return pBool
	case types.Int, types.Date, types.IntervalYearMonth:
		return pI32
	case types.BigInt, types.Timestamp, types.TimestampLTZ, types.IntervalDayTime:
		return pI64
	case types.Float:
		return pF32
	case types.Double:
		return pF64
	case types.Decimal:
		return pDec
	case types.String:
		return pStr
	case types.Row, types.Array, types.Map:
		return pNest
	}
	return pNull
}

// width is the byte size of one fixed-width value, 0 for the others.
func (p phys) width() int {
	switch p {
	case pI32, pF32:
		return 4
	case pI64, pF64:
		return 8
	case pDec:
		return 16
	}
	return 0
}

// vec is an expression's value over one batch: a column of rows, or, when
// konst, one value (slot 0) that stands for every row. A kernel reads its
// arguments' vecs and never writes to them; values of NULL rows, and of rows
// outside the active mask, are unspecified.
type vec struct {
	konst bool
	valid []uint64 // validity bits; nil when no row is NULL
	bits  []uint64 // BOOLEAN values
	fixed []byte   // other fixed-width values, read through col
	offs  []int32  // STRING: row i is data[offs[i]:offs[i+1]]
	data  []byte
	nest  arrow.Array // ROW, ARRAY, MAP: the values; valid has the NULLs
}

// nullv is a constant NULL of any type. Its value slots exist (and are
// zero) so that code picking values without looking at validity first
// stays in bounds. Nothing writes to it.
var nullv = vec{konst: true, valid: []uint64{0}, bits: []uint64{0}, fixed: make([]byte, 16), offs: []int32{0, 0}}

// null reports whether v is NULL for every row.
func (v *vec) null() bool { return v.konst && v.valid != nil && v.valid[0]&1 == 0 }

func (v *vec) bit(i int) bool {
	if v.konst {
		i = 0
	}
	return v.bits[i>>6]>>(uint(i)&63)&1 != 0
}

func (v *vec) str(i int) []byte {
	if v.konst {
		i = 0
	}
	return v.data[v.offs[i]:v.offs[i+1]]
}

// validWord is word w of the validity bits, with a constant broadcast.
func (v *vec) validWord(w int) uint64 {
	switch {
	case v.valid == nil:
		return ^uint64(0)
	case v.konst:
		return -(v.valid[0] & 1)
	}
	return v.valid[w]
}

// bitsWord is word w of the BOOLEAN values, with a constant broadcast.
func (v *vec) bitsWord(w int) uint64 {
	if v.konst {
		return -(v.bits[0] & 1)
	}
	return v.bits[w]
}

// col views v's fixed-width values as a []T.
func col[T any](v *vec) []T { return view[T](v.fixed) }

func view[T any](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(z)))
}

func raw[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// alignedBytes allocates n bytes aligned for any fixed-width value.
func alignedBytes(n int) []byte {
	return raw(make([]uint64, (n+7)/8))[:n]
}

// store holds the buffers a node owns and reuses from batch to batch.
type store struct {
	valid, bits, mask, sub []uint64
	masks                  [][]uint64 // per source of CASE and COALESCE
	fixed                  []byte
	offs                   []int32
	data                   []byte
	pick                   []int32
}

// state is what one evaluation shares across the nodes of a program.
type state struct {
	epoch uint64 // bumped per batch; a node evaluates once per epoch
	now   int64
}

// A node evaluates one expression. Most nodes are eager: the generic runner
// evaluates the arguments into in, handles constants and (when strict)
// NULL propagation, and calls kern to fill out. Nodes that decide which
// arguments to evaluate for which rows (AND, OR, CASE, COALESCE) set run.
//
// The act mask passed down says which rows' values matter: nil for all.
// Kernels may skip the other rows (expensive ones do), and must not raise
// an error for them: that is how CASE WHEN b <> 0 THEN a / b stays safe.
type node struct {
	t      types.Type
	p      phys
	kids   []*node
	in     []*vec
	out    vec
	own    store
	strict bool // NULL if any argument is NULL
	fixed  bool // constant folded at compile time; out holds it
	clock  bool // reads the evaluation clock, so never folded
	col    int  // input column index, or -1
	kern   func(rows int, act []uint64) error
	run    func(s *state, n int, act []uint64) (*vec, error)
	seen   uint64
	res    *vec
}

func (nd *node) eval(s *state, n int, act []uint64) (*vec, error) {
	if nd.fixed {
		return &nd.out, nil
	}
	// A node shared by several parents (IN's operand, NULLIF's) runs once;
	// the first parent to ask has the widest active mask.
	if nd.seen == s.epoch {
		return nd.res, nil
	}
	var res *vec
	var err error
	if nd.run != nil {
		res, err = nd.run(s, n, act)
	} else {
		res, err = nd.eager(s, n, act)
	}
	if err != nil {
		return nil, err
	}
	nd.seen, nd.res = s.epoch, res
	return res, nil
}

func (nd *node) eager(s *state, n int, act []uint64) (*vec, error) {
	konst, null := true, false
	for i, k := range nd.kids {
		v, err := k.eval(s, n, act)
		if err != nil {
			return nil, err
		}
		nd.in[i] = v
		konst = konst && v.konst
		null = null || v.null()
	}
	// Every argument ran first, so that whether a row raises an error does
	// not depend on another argument being a constant NULL.
	if nd.strict && null {
		return &nullv, nil
	}
	rows := n
	if konst {
		rows, act = 1, collapse(act, n)
	}
	nd.out = vec{konst: konst}
	if nd.strict {
		nd.out.valid = nd.joinValid(rows)
	}
	if err := nd.kern(rows, act); err != nil {
		return nil, err
	}
	return &nd.out, nil
}

// collapse turns an active mask over n rows into one for a single constant
// row: active if any row is.
func collapse(act []uint64, n int) []uint64 {
	if act == nil || anySet(act, n) {
		return nil
	}
	return noRows
}

var noRows = []uint64{0}

// joinValid is the validity of a strict function: the AND of its arguments'.
func (nd *node) joinValid(rows int) []uint64 {
	var v []uint64
	mine := false
	for _, x := range nd.in {
		if x.valid == nil || x.konst {
			continue
		}
		switch {
		case v == nil:
			v = x.valid
		case !mine:
			dst := grow(&nd.own.valid, words(rows))
			and2(dst, v, x.valid)
			v, mine = dst, true
		default:
			and2(v, v, x.valid)
		}
	}
	return v
}

// setNull makes row i of out NULL, first taking a private copy of a
// validity bitmap borrowed from an argument.
func (nd *node) setNull(i, rows int) {
	v := nd.out.valid
	if v == nil || len(nd.own.valid) == 0 || unsafe.SliceData(v) != unsafe.SliceData(nd.own.valid) {
		own := grow(&nd.own.valid, words(rows))
		if v == nil {
			fill(own, ^uint64(0))
		} else {
			copy(own, v)
		}
		nd.out.valid = own
	}
	nd.out.valid[i>>6] &^= 1 << (uint(i) & 63)
}

// liveWord is word w of the rows a strict kernel has to compute: active and
// not NULL.
func (nd *node) liveWord(w, rows int, act []uint64) uint64 {
	m := ^uint64(0)
	if act != nil {
		m = act[w]
	}
	if v := nd.out.valid; v != nil {
		m &= v[w]
	}
	if w == words(rows)-1 {
		m &= tail(rows)
	}
	return m
}

// out returns rows values of the node's result, to be written.
func out[T any](nd *node, rows int) []T {
	var z T
	need := rows * int(unsafe.Sizeof(z))
	if cap(nd.own.fixed) < need {
		nd.own.fixed = alignedBytes(need)
	}
	nd.out.fixed = nd.own.fixed[:need]
	return view[T](nd.out.fixed)
}

func (nd *node) outBits(rows int) []uint64 {
	nd.out.bits = grow(&nd.own.bits, words(rows))
	return nd.out.bits
}

// strs starts a STRING result of rows values with about size bytes.
func (nd *node) strs(rows, size int) []int32 {
	offs := grow(&nd.own.offs, rows+1)
	offs[0] = 0
	if cap(nd.own.data) < size {
		nd.own.data = make([]byte, 0, size)
	}
	nd.own.data = nd.own.data[:0]
	return offs
}

// strsDone publishes the STRING result built in own.
func (nd *node) strsDone(offs []int32) {
	nd.out.offs, nd.out.data = offs, nd.own.data
}

// --- bitmaps ---

func words(n int) int { return (n + 63) >> 6 }

// grow resizes *s to n elements, reusing its storage when it can.
func grow[T any](s *[]T, n int) []T {
	if cap(*s) < n {
		*s = make([]T, n)
	}
	*s = (*s)[:n]
	return *s
}

func fill(w []uint64, v uint64) {
	for i := range w {
		w[i] = v
	}
}

func and2(dst, a, b []uint64) {
	b = b[:len(dst)]
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] & b[i]
	}
}

// on reports whether row i is active.
func on(act []uint64, i int) bool {
	return act == nil || act[i>>6]>>(uint(i)&63)&1 != 0
}

func b2u(b bool) uint64 {
	var x uint64
	if b {
		x = 1
	}
	return x
}

// tail masks the bits of the last word that belong to n rows.
func tail(n int) uint64 {
	if n&63 == 0 {
		return ^uint64(0)
	}
	return 1<<(uint(n)&63) - 1
}

func anySet(w []uint64, n int) bool {
	nw := words(n)
	for i := 0; i < nw-1; i++ {
		if w[i] != 0 {
			return true
		}
	}
	return nw > 0 && w[nw-1]&tail(n) != 0
}

func countSet(w []uint64, n int) int {
	nw := words(n)
	c := 0
	for i := 0; i < nw-1; i++ {
		c += bits.OnesCount64(w[i])
	}
	if nw > 0 {
		c += bits.OnesCount64(w[nw-1] & tail(n))
	}
	return c
}

// loadWord reads the 64 bits of an Arrow bitmap that start at bit off;
// bits past the end of bm read as zero.
func loadWord(bm []byte, off int) uint64 {
	i, s := off>>3, uint(off&7)
	if i+9 <= len(bm) {
		w := uint64(bm[i]) | uint64(bm[i+1])<<8 | uint64(bm[i+2])<<16 | uint64(bm[i+3])<<24 |
			uint64(bm[i+4])<<32 | uint64(bm[i+5])<<40 | uint64(bm[i+6])<<48 | uint64(bm[i+7])<<56
		if s == 0 {
			return w
		}
		return w>>s | uint64(bm[i+8])<<(64-s)
	}
	var w uint64
	for k := 0; k < 9 && i+k < len(bm); k++ {
		b := uint64(bm[i+k])
		if k == 0 {
			w |= b >> s
		} else {
			w |= b << (uint(k)*8 - s)
		}
	}
	return w
}

// wordsOf returns n bits of an Arrow bitmap starting at bit off as words:
// a view of bm when the bits are word-aligned, else a copy into *scratch.
func wordsOf(bm []byte, off, n int, scratch *[]uint64) []uint64 {
	nw := words(n)
	start := off >> 3
	if off&63 == 0 && start+nw*8 <= len(bm) && uintptr(unsafe.Pointer(unsafe.SliceData(bm)))&7 == 0 {
		return view[uint64](bm[start : start+nw*8])
	}
	dst := grow(scratch, nw)
	for w := range dst {
		dst[w] = loadWord(bm, off+w*64)
	}
	return dst
}
