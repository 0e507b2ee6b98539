package expr

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

// Nested values (ROW, ARRAY, MAP) are read, never computed: a column of a
// nested type is its Arrow array (vec.nest, with the NULLs in vec.valid),
// and GetField reads a struct's child array in place, its validity the
// AND of the row's and the field's, so that a NULL row has NULL fields.
// No row is boxed: a field is a column like any other for the kernels
// above it. ElementAt and Cardinality read a list's or map's offsets and
// gather the values they pick.

// ReadsNested reports whether e is an expression whose nested value is
// read rather than computed: a column, a field of one, an element of one,
// a NULL. The evaluator computes no other nested values.
func ReadsNested(e Expr) bool {
	switch e := e.(type) {
	case *Col:
		return true
	case *Call:
		return (e.Fn == GetField || e.Fn == ElementAt) && ReadsNested(e.Args[0])
	case *Lit:
		return e.V.IsNull
	}
	return false
}

func (c *compiler) nested(e *Call) (*node, error) {
	switch e.Fn {
	case GetField:
		return c.getField(e)
	case ElementAt:
		return c.elementAt(e, false)
	case Element:
		if err := arity(e, 1, 1); err != nil {
			return nil, err
		}
		if e.Args[0].Type().Kind != types.Array {
			return nil, errorf(e, "ELEMENT takes an ARRAY, got %s", e.Args[0].Type())
		}
		return c.elementAt(&Call{Fn: ElementAt, Args: []Expr{e.Args[0], &Lit{V: types.IntValue(types.TInt, 1)}}, T: e.T}, true)
	}
	return c.cardinality(e)
}

func (c *compiler) getField(e *Call) (*node, error) {
	if err := arity(e, 2, 2); err != nil {
		return nil, err
	}
	rt := e.Args[0].Type()
	name, ok := litString(e.Args[1])
	if !ok || rt.Kind != types.Row {
		return nil, errorf(e, "GET_FIELD takes a ROW and a field name")
	}
	idx := rt.FieldIndex(name)
	if idx < 0 {
		return nil, errorf(e, "%s has no field %s", rt, name)
	}
	if ft := rt.Fields()[idx].Type; !types.Same(ft, e.T) {
		return nil, errorf(e, "field %s is %s, not %s", name, ft, e.T)
	}
	x, err := c.compile(e.Args[0])
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, x)
	nd.run = func(s *state, n int, act []uint64) (*vec, error) {
		v, err := x.eval(s, n, act)
		if err != nil {
			return nil, err
		}
		if v.nest == nil {
			return &nullv, nil
		}
		f := v.nest.(*array.Struct).Field(idx)
		load(nd, f)
		nd.out.nest = f // so that a field selected as it is is not copied
		nd.andValid(v.valid, n)
		return &nd.out, nil
	}
	return nd, nil
}

// andValid makes the node's result NULL where parent, the validity of
// the value it was read from, is.
func (nd *node) andValid(parent []uint64, n int) {
	if parent == nil {
		return
	}
	dst := grow(&nd.own.mask, words(n))
	if nd.out.valid == nil {
		copy(dst, parent)
	} else {
		and2(dst, nd.out.valid, parent)
	}
	nd.out.valid = dst
}

// elementAt compiles arr[i] (1-based, NULL out of range, as Flink) and
// map[key] (NULL when the key is absent; the last entry wins if a map
// holds a key twice); with sole, ELEMENT(arr): arr[1], and an error for
// an array of more than one element.
func (c *compiler) elementAt(e *Call, sole bool) (*node, error) {
	if err := arity(e, 2, 2); err != nil {
		return nil, err
	}
	ct := e.Args[0].Type()
	var want types.Type
	switch ct.Kind {
	case types.Array:
		want = types.TBigInt
	case types.Map:
		want = ct.Key()
	default:
		return nil, errorf(e, "ITEM takes an ARRAY or a MAP, got %s", ct)
	}
	if !types.Same(ct.Elem(), e.T) {
		return nil, errorf(e, "the element is %s, not %s", ct.Elem(), e.T)
	}
	if physOf(want) == pNest {
		return nil, errorf(e, "a MAP with %s keys cannot be subscripted", want)
	}
	x, err := c.compile(e.Args[0])
	if err != nil {
		return nil, err
	}
	var k *node
	if ct.Kind == types.Array {
		k, err = c.typed(e, e.Args[1], want, types.Type.IsIntegral)
	} else {
		k, err = c.typed(e, e.Args[1], want, func(t types.Type) bool { return types.Same(t, want) })
	}
	if err != nil {
		return nil, err
	}
	if physOf(e.T) == pNest {
		return nil, errorf(e, "an element of type %s cannot be picked out yet", e.T)
	}
	nd := newNode(e.T, x, k)
	child := newNode(e.T) // the elements, loaded per batch
	keys := newNode(want) // a map's keys, loaded per batch
	nd.run = func(s *state, n int, act []uint64) (*vec, error) {
		v, err := x.eval(s, n, act)
		if err != nil {
			return nil, err
		}
		kv, err := k.eval(s, n, act)
		if err != nil {
			return nil, err
		}
		if v.nest == nil || kv.null() {
			return &nullv, nil
		}
		p := grow(&nd.own.pick, n)
		offs := listOffsets(v.nest)
		var vals arrow.Array
		switch a := v.nest.(type) {
		case *array.List:
			vals = a.ListValues()
		case *array.Map:
			vals = a.Items()
			load(keys, a.Keys())
		}
		for i := range p {
			p[i] = -1
			if !on(act, i) || !validAt(v, i) || !validAt(kv, i) {
				continue
			}
			lo, hi := offs[i], offs[i+1]
			if sole && hi-lo > 1 {
				return nil, fmt.Errorf("%w: ELEMENT of an array of %d elements", ErrRuntime, hi-lo)
			}
			if ct.Kind == types.Array {
				var idx int64
				if k.p == pI32 {
					idx = int64(col[int32](kv)[slot(kv, i)])
				} else {
					idx = col[int64](kv)[slot(kv, i)]
				}
				if idx >= 1 && idx <= int64(hi-lo) {
					p[i] = lo + int32(idx) - 1
				}
				continue
			}
			for j := hi - 1; j >= lo; j-- {
				if sameAt(&keys.out, int(j), kv, i, k.p) {
					p[i] = j
					break
				}
			}
		}
		if vals.Len() > 0 {
			load(child, vals)
		}
		return pickRows(nd, &child.out, p, n), nil
	}
	return nd, nil
}

// slot is the value slot of row i in v: 0 for a constant.
func slot(v *vec, i int) int {
	if v.konst {
		return 0
	}
	return i
}

// sameAt reports whether row i of a equals row j of b, both of phys p and
// not NULL.
func sameAt(a *vec, i int, b *vec, j int, p phys) bool {
	if !validAt(a, i) {
		return false
	}
	j = slot(b, j)
	switch p {
	case pBool:
		return a.bit(i) == b.bit(j)
	case pStr:
		return bytes.Equal(a.str(i), b.str(j))
	}
	w := p.width()
	return bytes.Equal(a.fixed[i*w:(i+1)*w], b.fixed[j*w:(j+1)*w])
}

// pickRows makes nd's result: row i is row p[i] of src, NULL where p[i] is
// -1.
func pickRows(nd *node, src *vec, p []int32, n int) *vec {
	nd.out = vec{}
	valid := grow(&nd.own.valid, words(n))
	fill(valid, 0)
	for i, j := range p {
		if j >= 0 && validAt(src, int(j)) {
			valid[i>>6] |= 1 << (uint(i) & 63)
		}
	}
	nd.out.valid = valid
	switch nd.p {
	case pBool:
		b := nd.outBits(n)
		fill(b, 0)
		for i, j := range p {
			if j >= 0 && src.bit(int(j)) {
				b[i>>6] |= 1 << (uint(i) & 63)
			}
		}
	case pStr:
		offs := nd.strs(n, 0)
		for i, j := range p {
			if j >= 0 {
				nd.own.data = append(nd.own.data, src.str(int(j))...)
			}
			offs[i+1] = int32(len(nd.own.data))
		}
		nd.strsDone(offs)
	default:
		w := nd.p.width()
		dst := out[byte](nd, n*w)
		for i, j := range p {
			if j >= 0 {
				copy(dst[i*w:(i+1)*w], src.fixed[int(j)*w:(int(j)+1)*w])
			}
		}
	}
	return &nd.out
}

// cardinality is CARDINALITY(array | map): INT, NULL for a NULL value.
func (c *compiler) cardinality(e *Call) (*node, error) {
	if err := arity(e, 1, 1); err != nil {
		return nil, err
	}
	if k := e.Args[0].Type().Kind; k != types.Array && k != types.Map {
		return nil, errorf(e, "CARDINALITY takes an ARRAY or a MAP, got %s", e.Args[0].Type())
	}
	if e.T.Kind != types.Int {
		return nil, errorf(e, "CARDINALITY is INT")
	}
	x, err := c.compile(e.Args[0])
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, x)
	nd.strict = true
	nd.kern = func(rows int, act []uint64) error {
		o := out[int32](nd, rows)
		offs := listOffsets(nd.in[0].nest)
		for i := range o {
			o[i] = offs[i+1] - offs[i]
		}
		return nil
	}
	return nd, nil
}

// listOffsets returns the n+1 offsets of a list or map array's rows.
func listOffsets(a arrow.Array) []int32 {
	d := a.Data()
	return arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset() : d.Offset()+d.Len()+1]
}

// nestedResult turns a result read from a nested column (a ROW, ARRAY or
// MAP, or a field of any type) into an Arrow array of type dt: the array
// it was read from, not copied, with the NULLs of the rows it was read
// from.
func nestedResult(alloc memory.Allocator, dt arrow.DataType, v *vec, n int) arrow.Array {
	if v.nest == nil {
		return array.MakeArrayOfNull(alloc, dt, n)
	}
	a := v.nest
	if v.valid == nil {
		return retype(a, dt)
	}
	d := a.Data()
	off := d.Offset()
	bm := newBuffer(alloc, int(bitutil.BytesForBits(int64(off+n))))
	bits := bm.Bytes()
	nulls := 0
	for i := 0; i < n; i++ {
		if v.valid[i>>6]>>(uint(i)&63)&1 != 0 {
			bitutil.SetBit(bits, off+i)
		} else {
			nulls++
		}
	}
	bufs := append([]*memory.Buffer{bm}, d.Buffers()[1:]...)
	nd := array.NewData(dt, n, bufs, d.Children(), nulls, off)
	bm.Release()
	defer nd.Release()
	return array.MakeFromData(nd)
}

// writeNested renders field access and subscripts as SQL writes them,
// row.field and array[i], for EXPLAIN.
func writeNested(b *strings.Builder, e *Call) bool {
	if len(e.Args) != 2 {
		return false
	}
	switch e.Fn {
	case GetField:
		name, ok := litString(e.Args[1])
		if !ok {
			return false
		}
		write(b, e.Args[0])
		b.WriteString("." + name)
	case ElementAt:
		write(b, e.Args[0])
		b.WriteString("[")
		write(b, e.Args[1])
		b.WriteString("]")
	default:
		return false
	}
	return true
}
