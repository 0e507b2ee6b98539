package memseg

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Schema is the field types of a binary row.
//
// A binary row is one byte slice:
//
//	null bits   one bit per field (bit i%64 of little-endian word i/64)
//	slots       8 bytes per field, little endian
//	var part    the bytes of String, Bytes and Decimal128 values
//
// Bool, Int32, Date32, Int64, Timestamp, Float32 and Float64 live in their
// slot. A String or Bytes value of up to 7 bytes lives in its slot too, with
// 0x80|length in the slot's last byte; a longer one, and a Decimal128 (16
// bytes, low word first), lives in the var part, its slot holding
// offset<<32 | length. So a reader finds any field with one load, without
// decoding the row, and a row is position independent: it can be copied or
// spilled as plain bytes.
type Schema struct {
	types []Type
	slots int // offset of the first slot
}

// NewSchema returns the schema of rows with fields of types, in order.
func NewSchema(types ...Type) (*Schema, error) {
	for i, t := range types {
		if !t.valid() {
			return nil, fmt.Errorf("memseg: field %d: invalid type %v", i, t)
		}
	}
	return &Schema{types: append([]Type(nil), types...), slots: (len(types) + 63) / 64 * 8}, nil
}

// Len is the number of fields.
func (s *Schema) Len() int { return len(s.types) }

// Type is the type of field i.
func (s *Schema) Type(i int) Type { return s.types[i] }

// fixedSize is the length of a row without var part.
func (s *Schema) fixedSize() int { return s.slots + 8*len(s.types) }

// Row reads the fields of row bytes b, which must have been written by a
// RowWriter of schema s. The Row aliases b.
func (s *Schema) Row(b []byte) Row { return Row{s: s, b: b} }

const inlineFlag = 0x80

// RowWriter builds binary rows of one schema in a buffer it reuses.
type RowWriter struct {
	s   *Schema
	buf []byte
}

// NewRowWriter returns a writer of rows of schema s; its first row is
// already begun.
func NewRowWriter(s *Schema) *RowWriter {
	w := &RowWriter{s: s}
	w.Reset()
	return w
}

// Reset begins a new row with every field NULL. The previous row's bytes
// are overwritten.
func (w *RowWriter) Reset() {
	n := w.s.fixedSize()
	if cap(w.buf) < n {
		w.buf = make([]byte, n, 2*n)
	}
	w.buf = w.buf[:n]
	clear(w.buf)
	for i := range w.s.types {
		w.buf[i/8] |= 1 << (i % 8)
	}
}

// Bytes is the row built so far. It aliases the writer's buffer until the
// next Reset.
func (w *RowWriter) Bytes() []byte { return w.buf }

// The setters below set field i of the row being built; each field may be
// set at most once per row (a var-length value set twice leaves its first
// bytes behind), and the setter must match the field's type (Int32 for
// Date32, Int64 for Timestamp, Bytes for String).

// SetNull makes field i NULL again.
func (w *RowWriter) SetNull(i int) {
	binary.LittleEndian.PutUint64(w.buf[w.s.slots+8*i:], 0)
	w.buf[i/8] |= 1 << (i % 8)
}

func (w *RowWriter) setSlot(i int, v uint64) {
	w.buf[i/8] &^= 1 << (i % 8)
	binary.LittleEndian.PutUint64(w.buf[w.s.slots+8*i:], v)
}

// SetBool sets a Bool field.
func (w *RowWriter) SetBool(i int, v bool) {
	var u uint64
	if v {
		u = 1
	}
	w.setSlot(i, u)
}

// SetInt32 sets an Int32 or Date32 field.
func (w *RowWriter) SetInt32(i int, v int32) { w.setSlot(i, uint64(uint32(v))) }

// SetInt64 sets an Int64 or Timestamp field.
func (w *RowWriter) SetInt64(i int, v int64) { w.setSlot(i, uint64(v)) }

// SetFloat32 sets a Float32 field.
func (w *RowWriter) SetFloat32(i int, v float32) { w.setSlot(i, uint64(math.Float32bits(v))) }

// SetFloat64 sets a Float64 field.
func (w *RowWriter) SetFloat64(i int, v float64) { w.setSlot(i, math.Float64bits(v)) }

// SetDecimal128 sets a Decimal128 field to the unscaled value hi:lo.
func (w *RowWriter) SetDecimal128(i int, hi int64, lo uint64) {
	off := len(w.buf)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, lo)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(hi))
	w.setSlot(i, uint64(off)<<32|16)
}

// SetBytes sets a String or Bytes field to a copy of v.
func (w *RowWriter) SetBytes(i int, v []byte) {
	if len(v) <= 7 {
		var slot [8]byte
		copy(slot[:], v)
		slot[7] = inlineFlag | byte(len(v))
		w.setSlot(i, binary.LittleEndian.Uint64(slot[:]))
		return
	}
	off := len(w.buf)
	w.buf = append(w.buf, v...)
	w.setSlot(i, uint64(off)<<32|uint64(len(v)))
}

// Row is a read-only view of a binary row. Accessors take the field index
// and must match the field's type, as the RowWriter setters do; on a NULL
// field they return the zero value.
type Row struct {
	s *Schema
	b []byte
}

// Schema is the row's schema.
func (r Row) Schema() *Schema { return r.s }

// IsNull reports whether field i is NULL.
func (r Row) IsNull(i int) bool { return r.b[i/8]&(1<<(i%8)) != 0 }

func (r Row) slot(i int) uint64 { return binary.LittleEndian.Uint64(r.b[r.s.slots+8*i:]) }

// Bool reads a Bool field.
func (r Row) Bool(i int) bool { return r.slot(i) != 0 }

// Int32 reads an Int32 or Date32 field.
func (r Row) Int32(i int) int32 { return int32(r.slot(i)) }

// Int64 reads an Int64 or Timestamp field.
func (r Row) Int64(i int) int64 { return int64(r.slot(i)) }

// Float32 reads a Float32 field.
func (r Row) Float32(i int) float32 { return math.Float32frombits(uint32(r.slot(i))) }

// Float64 reads a Float64 field.
func (r Row) Float64(i int) float64 { return math.Float64frombits(r.slot(i)) }

// Decimal128 reads a Decimal128 field.
func (r Row) Decimal128(i int) (hi int64, lo uint64) {
	s := r.slot(i)
	if s == 0 {
		return 0, 0
	}
	off := s >> 32
	return int64(binary.LittleEndian.Uint64(r.b[off+8:])), binary.LittleEndian.Uint64(r.b[off:])
}

// Bytes reads a String or Bytes field. The result aliases the row.
func (r Row) Bytes(i int) []byte {
	p := r.s.slots + 8*i
	if f := r.b[p+7]; f&inlineFlag != 0 {
		return r.b[p : p+int(f&^inlineFlag) : p+int(f&^inlineFlag)]
	}
	s := binary.LittleEndian.Uint64(r.b[p:])
	off, n := s>>32, s&math.MaxUint32
	return r.b[off : off+n : off+n]
}

// AppendKey appends field i as a normalized key column with order o, as
// the Append functions would encode its value.
func (r Row) AppendKey(dst []byte, i int, o Order) []byte {
	if r.IsNull(i) {
		return AppendNull(dst, o)
	}
	switch r.s.types[i] {
	case Bool:
		return AppendBool(dst, r.Bool(i), o)
	case Int32, Date32:
		return AppendInt64(dst, int64(r.Int32(i)), o)
	case Float32:
		return AppendFloat32(dst, r.Float32(i), o)
	case Float64:
		return AppendFloat64(dst, r.Float64(i), o)
	case Decimal128:
		hi, lo := r.Decimal128(i)
		return AppendDecimal128(dst, hi, lo, o)
	case String, Bytes:
		return AppendString(dst, r.Bytes(i), o)
	}
	return AppendInt64(dst, r.Int64(i), o)
}
