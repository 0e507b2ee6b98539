package planner

import (
	"fmt"
	"strings"

	"github.com/strandsql/strand/types"
)

// Union is UNION ALL: every row of each input, in no order between them.
// The inputs have Out's column types (the binder casts them); the columns
// take the first input's names. Time attributes become plain timestamps:
// a window over a union is not supported yet.
type Union struct {
	Ins []Node
	Out types.Schema
}

func (u *Union) Inputs() []Node       { return u.Ins }
func (u *Union) Schema() types.Schema { return u.Out }

// Mode is the union of the inputs' row kinds; an upsert key does not
// survive rows from elsewhere, so upserts become retractions.
func (u *Union) Mode() Mode {
	var k Changes
	for _, in := range u.Ins {
		m := ChangelogMode(in)
		k |= m.Kinds
		if m.Key != nil {
			k |= UpdatesBefore
		}
	}
	return Mode{Kinds: k}
}

func (u *Union) describe() string {
	return fmt.Sprintf("Union(all=[true], union=[%s])", strings.Join(u.Out.Names(), ", "))
}
