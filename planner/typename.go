package planner

import (
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// typeOf converts a type in the source to a SQL type.
func typeOf(t *parser.TypeName) (types.Type, error) {
	arg := func(i, def int) int {
		if i < len(t.Args) {
			return t.Args[i]
		}
		return def
	}
	var out types.Type
	switch t.Name {
	case "BOOLEAN":
		out = types.TBoolean
	case "TINYINT", "SMALLINT", "INT", "INTEGER":
		out = types.TInt
	case "BIGINT":
		out = types.TBigInt
	case "FLOAT", "REAL":
		out = types.TFloat
	case "DOUBLE", "DOUBLE PRECISION":
		out = types.TDouble
	case "DECIMAL", "DEC", "NUMERIC":
		p, s := arg(0, 10), arg(1, 0)
		if p < 1 || p > 38 || s < 0 || s > p {
			return out, errorf(t.Start, ErrType, "DECIMAL(%d, %d) is out of range: precision must be 1..38 and scale 0..precision", p, s)
		}
		out = types.DecimalOf(p, s)
	case "STRING":
		out = types.TString
	case "VARCHAR", "CHAR":
		out = types.Type{Kind: types.String, Precision: arg(0, 0)}
	case "DATE":
		out = types.TDate
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		p := arg(0, 6)
		if p < 0 || p > 9 {
			return out, errorf(t.Start, ErrType, "%s(%d): precision must be 0..9", t.Name, p)
		}
		out = types.Type{Kind: types.Timestamp, Precision: p}
		if t.Name == "TIMESTAMP_LTZ" {
			out.Kind = types.TimestampLTZ
		}
	case "ROW", "ARRAY", "MAP":
		var err error
		if out, err = nestedTypeOf(t); err != nil {
			return out, err
		}
	default:
		return out, errorf(t.Start, ErrUnsupported, "type %s is not supported (supported: BOOLEAN, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), STRING, VARCHAR(n), DATE, TIMESTAMP(p), TIMESTAMP_LTZ(p), ROW<...>, ARRAY<t>, MAP<k, v>)", t.Name)
	}
	out.NotNull = t.NotNull
	return out, nil
}
