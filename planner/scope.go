package planner

import (
	"errors"
	"strings"

	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// column is a name visible to expressions: a column of the input, with the
// alias of the table it came from.
type column struct {
	qual string
	name string
	typ  types.Type
	// hidden marks a column of the plan that SQL does not see: an
	// aggregate's grouping id $e, which names, * and the errors that
	// list columns skip.
	hidden bool
}

// scope is the set of columns an expression can refer to, in the order of
// the input's schema.
type scope struct {
	cols []column
	// shadowed is how many of the first columns are an outer query's, as
	// a correlated subquery sees them: only where the columns after them
	// have no such name.
	shadowed int
}

func scopeOf(s types.Schema, qual string) *scope {
	sc := &scope{}
	for _, f := range s {
		sc.cols = append(sc.cols, column{qual: qual, name: f.Name, typ: f.Type})
	}
	return sc
}

func (s *scope) schema() types.Schema {
	out := make(types.Schema, len(s.cols))
	for i, c := range s.cols {
		out[i] = types.Field{Name: c.name, Type: c.typ}
	}
	return out
}

// resolve finds the column id names: an exact match first, then a unique
// case-insensitive one.
func (s *scope) resolve(id *parser.Ident) (int, error) {
	if s.shadowed > 0 {
		inner, outer := &scope{cols: s.cols[s.shadowed:]}, &scope{cols: s.cols[:s.shadowed]}
		i, err := inner.resolve(id)
		if err == nil {
			return s.shadowed + i, nil
		}
		if !errors.Is(err, ErrUnknownColumn) {
			return -1, err
		}
		if j, oerr := outer.resolve(id); !errors.Is(oerr, ErrUnknownColumn) {
			return j, oerr
		}
		// Unknown in both: the error lists every column.
		return (&scope{cols: s.cols}).resolve(id)
	}
	name := id.Parts[len(id.Parts)-1]
	qual := ""
	if len(id.Parts) > 1 {
		qual = strings.Join(id.Parts[:len(id.Parts)-1], ".")
	}
	match := func(fold bool) []int {
		var hits []int
		for i, c := range s.cols {
			if c.hidden {
				continue
			}
			eq := c.name == name
			if fold {
				eq = strings.EqualFold(c.name, name)
			}
			if eq && (qual == "" || strings.EqualFold(c.qual, qual)) {
				hits = append(hits, i)
			}
		}
		return hits
	}
	hits := match(false)
	if len(hits) == 0 {
		hits = match(true)
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		var names []string
		for _, c := range s.cols {
			if !c.hidden {
				names = append(names, c.name)
			}
		}
		return -1, errorf(id.Start, ErrUnknownColumn, "unknown column '%s' (columns: %s)", strings.Join(id.Parts, "."), strings.Join(names, ", "))
	}
	return -1, errorf(id.Start, ErrUnknownColumn, "column '%s' is ambiguous", strings.Join(id.Parts, "."))
}
