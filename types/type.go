package types

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Kind is the SQL type family.
type Kind uint8

// The SQL type families strand supports.
const (
	Invalid Kind = iota
	Null         // the type of an untyped NULL literal
	Boolean
	Int
	BigInt
	Float
	Double
	Decimal
	String
	Date
	Timestamp
	TimestampLTZ
	IntervalDayTime
	IntervalYearMonth
	Row   // ROW<name type, ...>: see nested.go
	Array // ARRAY<type>
	Map   // MAP<key, value>
)

var kindNames = [...]string{
	Invalid:           "INVALID",
	Null:              "NULL",
	Boolean:           "BOOLEAN",
	Int:               "INT",
	BigInt:            "BIGINT",
	Float:             "FLOAT",
	Double:            "DOUBLE",
	Decimal:           "DECIMAL",
	String:            "STRING",
	Date:              "DATE",
	Timestamp:         "TIMESTAMP",
	TimestampLTZ:      "TIMESTAMP_LTZ",
	IntervalDayTime:   "INTERVAL DAY TO SECOND",
	IntervalYearMonth: "INTERVAL YEAR TO MONTH",
	Row:               "ROW",
	Array:             "ARRAY",
	Map:               "MAP",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// TimeAttr marks a column as a time attribute.
type TimeAttr uint8

// Time attribute markers: an event-time column declared by a WATERMARK
// clause, or a processing-time column from PROCTIME().
const (
	NoTimeAttr TimeAttr = iota
	RowTime
	ProcTime
)

// Type is a SQL type. The zero value is Invalid. Types are small values and
// compared with ==: a nested type's fields or elements are in an interned
// *Nest, one per distinct nested type (nested.go), so == compares them too.
type Type struct {
	Kind Kind
	// Precision is DECIMAL's precision, TIMESTAMP's fractional-second
	// precision, or VARCHAR's maximum length (0 means STRING, unbounded).
	Precision int
	// Scale is DECIMAL's scale.
	Scale int
	// NotNull is set for columns declared NOT NULL and for expressions that
	// can never be NULL.
	NotNull bool
	// Attr marks a rowtime or proctime attribute.
	Attr TimeAttr
	// Nest holds a ROW's fields, an ARRAY's element or a MAP's key and
	// value; nil for the other kinds. Made only by RowOf, ArrayOf and
	// MapOf, which intern it.
	Nest *Nest
}

// Convenience constructors for the common nullable types.
var (
	TBoolean      = Type{Kind: Boolean}
	TInt          = Type{Kind: Int}
	TBigInt       = Type{Kind: BigInt}
	TFloat        = Type{Kind: Float}
	TDouble       = Type{Kind: Double}
	TString       = Type{Kind: String}
	TDate         = Type{Kind: Date}
	TTimestamp    = Type{Kind: Timestamp, Precision: 3}
	TTimestampLTZ = Type{Kind: TimestampLTZ, Precision: 3}
	TIntervalDT   = Type{Kind: IntervalDayTime}
	TIntervalYM   = Type{Kind: IntervalYearMonth}
	TNull         = Type{Kind: Null}
)

// DecimalOf returns DECIMAL(p, s).
func DecimalOf(p, s int) Type { return Type{Kind: Decimal, Precision: p, Scale: s} }

// Nullable returns t with NotNull cleared.
func (t Type) Nullable() Type { t.NotNull = false; return t }

// WithNotNull returns t with NotNull set to v.
func (t Type) WithNotNull(v bool) Type { t.NotNull = v; return t }

// Plain returns t without its time attribute.
func (t Type) Plain() Type { t.Attr = NoTimeAttr; return t }

// Same reports whether a and b are the same type ignoring nullability and
// time attributes.
func Same(a, b Type) bool {
	a.NotNull, b.NotNull = false, false
	a.Attr, b.Attr = NoTimeAttr, NoTimeAttr
	if a.Kind == String && b.Kind == String {
		return true
	}
	if a.Nest != nil && b.Nest != nil {
		return sameNested(a, b)
	}
	return a == b
}

// IsNumeric reports whether t is an exact or approximate number.
func (t Type) IsNumeric() bool {
	switch t.Kind {
	case Int, BigInt, Float, Double, Decimal:
		return true
	}
	return false
}

// IsIntegral reports whether t is INT or BIGINT.
func (t Type) IsIntegral() bool { return t.Kind == Int || t.Kind == BigInt }

// IsTimestamp reports whether t is TIMESTAMP or TIMESTAMP_LTZ.
func (t Type) IsTimestamp() bool { return t.Kind == Timestamp || t.Kind == TimestampLTZ }

// IsInterval reports whether t is an interval type.
func (t Type) IsInterval() bool { return t.Kind == IntervalDayTime || t.Kind == IntervalYearMonth }

// String renders the type as Flink prints it in DESCRIBE.
func (t Type) String() string {
	var s string
	switch t.Kind {
	case Decimal:
		s = fmt.Sprintf("DECIMAL(%d, %d)", t.Precision, t.Scale)
	case String:
		if t.Precision > 0 {
			s = fmt.Sprintf("VARCHAR(%d)", t.Precision)
		} else {
			s = "STRING"
		}
	case Timestamp, TimestampLTZ:
		s = fmt.Sprintf("%s(%d)", t.Kind, t.Precision)
	case Row, Array, Map:
		s = t.nestedString()
	default:
		s = t.Kind.String()
	}
	if t.NotNull {
		s += " NOT NULL"
	}
	switch t.Attr {
	case RowTime:
		s += " *ROWTIME*"
	case ProcTime:
		s += " *PROCTIME*"
	}
	return s
}

// Arrow returns the Arrow data type that holds values of t.
func (t Type) Arrow() arrow.DataType {
	switch t.Kind {
	case Boolean:
		return arrow.FixedWidthTypes.Boolean
	case Int, IntervalYearMonth:
		return arrow.PrimitiveTypes.Int32
	case BigInt, IntervalDayTime:
		return arrow.PrimitiveTypes.Int64
	case Float:
		return arrow.PrimitiveTypes.Float32
	case Double:
		return arrow.PrimitiveTypes.Float64
	case Decimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}
	case String:
		return arrow.BinaryTypes.String
	case Date:
		return arrow.FixedWidthTypes.Date32
	case Timestamp:
		return &arrow.TimestampType{Unit: arrow.Millisecond}
	case TimestampLTZ:
		return &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
	case Null:
		return arrow.Null
	case Row, Array, Map:
		return t.nestedArrow()
	}
	panic(fmt.Sprintf("types: no Arrow type for %v", t.Kind))
}

// Field is a named column.
type Field struct {
	Name string
	Type Type
}

// Schema is an ordered list of columns.
type Schema []Field

// Index returns the position of the column named name, compared
// case-insensitively as Flink does for unquoted identifiers, or -1.
func (s Schema) Index(name string) int {
	for i, f := range s {
		if f.Name == name {
			return i
		}
	}
	for i, f := range s {
		if equalFold(f.Name, name) {
			return i
		}
	}
	return -1
}

// Names returns the column names.
func (s Schema) Names() []string {
	out := make([]string, len(s))
	for i, f := range s {
		out[i] = f.Name
	}
	return out
}

// Arrow returns the Arrow schema for s. All fields are nullable in Arrow
// terms; SQL NOT NULL is enforced by the planner, not by the arrays.
func (s Schema) Arrow() *arrow.Schema {
	fs := make([]arrow.Field, len(s))
	for i, f := range s {
		fs[i] = arrow.Field{Name: f.Name, Type: f.Type.Arrow(), Nullable: true}
	}
	return arrow.NewSchema(fs, nil)
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		ca, cb := a[i], b[i]
		if 'A' <= ca && ca <= 'Z' {
			ca += 'a' - 'A'
		}
		if 'A' <= cb && cb <= 'Z' {
			cb += 'a' - 'A'
		}
		if ca != cb {
			return false
		}
	}
	return true
}
