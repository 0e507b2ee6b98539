package planner

import (
	"fmt"
	"strings"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// Expand is Flink's Expand, which GROUPING SETS, ROLLUP and CUBE plan
// to: it emits each input row once per grouping set, with the key columns
// the set lacks set to NULL, and a column $e (BIGINT NOT NULL) holding the
// set's id, so that the aggregate above it, grouping by the keys and $e,
// computes every grouping set at once. A NULL in a key column and the
// NULL of a key absent from the set are different groups, since their $e
// differ. Its output is its input's columns, the keys nullable, then $e.
type Expand struct {
	Input Node
	// Keys are the grouping columns of Input, in grouping order: key i is
	// bit len(Keys)-1-i of an id.
	Keys []int
	// IDs are the grouping sets' ids (grouping.ids), one output row per
	// input row and id.
	IDs []int64
}

func (x *Expand) Inputs() []Node { return []Node{x.Input} }

func (x *Expand) Schema() types.Schema {
	out := append(types.Schema{}, x.Input.Schema()...)
	for i, k := range x.Keys {
		for _, id := range x.IDs {
			if x.absent(id, i) {
				out[k].Type = out[k].Type.Plain().Nullable()
			}
		}
	}
	return append(out, types.Field{Name: "$e", Type: types.TBigInt.WithNotNull(true)})
}

// Mode is the input's row kinds: each copy of a row means what the row
// means. No upsert key survives the copies.
func (x *Expand) Mode() Mode { return Mode{Kinds: ChangelogMode(x.Input).Kinds} }

// absent reports whether key i is not in the grouping set of id.
func (x *Expand) absent(id int64, i int) bool { return id>>(len(x.Keys)-1-i)&1 == 1 }

// describe renders the node as Flink's EXPLAIN does:
// Expand(projects=[{a, b, 0 AS $e}, {a, null AS b, 1 AS $e}]).
func (x *Expand) describe() string {
	in := x.Input.Schema()
	sets := make([]string, len(x.IDs))
	for s, id := range x.IDs {
		cols := in.Names()
		for i, k := range x.Keys {
			if x.absent(id, i) {
				cols[k] = "null AS " + cols[k]
			}
		}
		sets[s] = fmt.Sprintf("{%s, %d AS $e}", strings.Join(cols, ", "), id)
	}
	return fmt.Sprintf("Expand(projects=[%s])", strings.Join(sets, ", "))
}

// expandCanon is what an Expand under a stateful operator adds to its
// canonical encoding (uid.go): its grouping sets, which its keys alone do
// not tell apart (GROUPING SETS ((a, b), (a)) and ((a, b), (b)) have the
// same keys), and its keys with the expressions that compute them (a
// window aggregate's own encoding has their names and types only);
// nothing for another input, so that the uids of aggregates without
// grouping sets stay what they were.
func expandCanon(in Node) string {
	x, ok := in.(*Expand)
	if !ok {
		return ""
	}
	var b strings.Builder
	for _, k := range x.Keys {
		fmt.Fprintf(&b, "expand key %s\n", canonComputed(x.Input, k))
	}
	ids := make([]string, len(x.IDs))
	for i, id := range x.IDs {
		ids[i] = fmt.Sprint(id)
	}
	fmt.Fprintf(&b, "expand ids %s\n", strings.Join(ids, ","))
	return b.String()
}

// expand chains the Expand into its input's vertex: it is stateless, and
// the exchange after it hashes the copies of a row by their own keys and
// $e.
func (c *compiler) expand(n *Expand) (*stage, error) {
	s, err := c.node(n.Input)
	if err != nil {
		return nil, err
	}
	in, out := s.schema, n.Schema()
	if _, err := exec.NewExpand(in, n.Keys, n.IDs, out); err != nil {
		return nil, err
	}
	s.v.Ops = append(s.v.Ops, exec.OpSpec{Name: n.describe(), Out: out,
		New: func() (exec.Operator, error) { return exec.NewExpand(in, n.Keys, n.IDs, out) }})
	s.schema = out
	return s, nil
}
