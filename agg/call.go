package agg

import (
	"errors"
	"fmt"

	"github.com/strandsql/strand/types"
)

// Kind is an aggregate function.
type Kind uint8

// The aggregate functions strand computes.
const (
	CountStar Kind = iota
	Count
	Sum
	Min
	Max
	Avg
)

func (k Kind) String() string {
	return [...]string{"COUNT(*)", "COUNT", "SUM", "MIN", "MAX", "AVG"}[k]
}

// Call is one aggregate call over input columns.
type Call struct {
	Kind Kind
	// Arg is the argument column, -1 for COUNT(*).
	Arg int
	// Filter is a BOOLEAN column: only rows where it is TRUE count. -1 for
	// no FILTER clause.
	Filter int
	// Distinct aggregates each distinct argument value once per group.
	Distinct bool
	// Out is the result type.
	Out types.Type
	// Name is the call as written, e.g. SUM(amount), for errors.
	Name string
}

// ErrOverflow is wrapped by the error of an aggregate whose result does
// not fit its type: a SUM or AVG fails the job rather than wrap around.
var ErrOverflow = errors.New("numeric overflow")

func (a Call) name() string {
	if a.Name != "" {
		return a.Name
	}
	return a.Kind.String()
}

// ResultType returns the type Flink gives agg over an argument of type in.
func ResultType(kind Kind, in types.Type) (types.Type, error) {
	switch kind {
	case CountStar, Count:
		return types.TBigInt.WithNotNull(true), nil
	case Min, Max:
		switch in.Kind {
		case types.Boolean, types.Int, types.BigInt, types.Float, types.Double, types.Decimal,
			types.String, types.Date, types.Timestamp, types.TimestampLTZ:
			return in.Plain().Nullable(), nil
		}
	case Sum:
		switch in.Kind {
		case types.Int, types.BigInt, types.Float, types.Double:
			return in.Plain().Nullable(), nil
		case types.Decimal:
			return types.DecimalOf(38, in.Scale), nil
		}
	case Avg:
		switch in.Kind {
		case types.Int, types.BigInt, types.Float, types.Double:
			return in.Plain().Nullable(), nil
		case types.Decimal:
			return types.DecimalOf(38, max(in.Scale, 6)), nil
		}
	}
	return types.Type{}, fmt.Errorf("%v does not accept %v", kind, in.Plain())
}
