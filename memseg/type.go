package memseg

import "fmt"

// Type is the physical type of a binary-row field or a normalized-key
// column. memseg keeps its own enum so that it depends on no other strand
// package; callers map their SQL types onto it.
type Type uint8

// The physical types. Date32 is days and Timestamp milliseconds since the
// epoch; in normalized keys Int32, Date32 and Timestamp are widened to int64.
const (
	Bool Type = iota + 1
	Int32
	Int64
	Float32
	Float64
	Decimal128
	String
	Bytes
	Date32
	Timestamp
)

var typeNames = [...]string{
	Bool:       "bool",
	Int32:      "int32",
	Int64:      "int64",
	Float32:    "float32",
	Float64:    "float64",
	Decimal128: "decimal128",
	String:     "string",
	Bytes:      "bytes",
	Date32:     "date32",
	Timestamp:  "timestamp",
}

func (t Type) String() string {
	if t.valid() {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

func (t Type) valid() bool { return t >= Bool && t <= Timestamp }

// varLen reports whether values of t have no fixed size.
func (t Type) varLen() bool { return t == String || t == Bytes }
