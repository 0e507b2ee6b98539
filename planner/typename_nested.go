package planner

import (
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// nestedTypeOf converts ROW<name type, ...>, ARRAY<t> and MAP<k, v>.
func nestedTypeOf(t *parser.TypeName) (types.Type, error) {
	switch t.Name {
	case "ROW":
		fs := make([]types.Field, len(t.Fields))
		for i, f := range t.Fields {
			for _, g := range t.Fields[:i] {
				if g.Name == f.Name {
					return types.Type{}, errorf(f.Start, ErrType, "ROW field '%s' is declared twice", f.Name)
				}
			}
			ft, err := typeOf(f.Type)
			if err != nil {
				return types.Type{}, err
			}
			fs[i] = types.Field{Name: f.Name, Type: ft}
		}
		return types.RowOf(fs), nil
	case "ARRAY":
		e, err := typeOf(t.Elems[0])
		if err != nil {
			return types.Type{}, err
		}
		return types.ArrayOf(e), nil
	}
	k, err := typeOf(t.Elems[0])
	if err != nil {
		return types.Type{}, err
	}
	v, err := typeOf(t.Elems[1])
	if err != nil {
		return types.Type{}, err
	}
	return types.MapOf(k, v), nil
}
