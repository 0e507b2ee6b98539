package planner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/connector"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/rank"
	"github.com/strandsql/strand/types"
)

// Changelog sources and sinks, and the upsert keys that connect them.
//
// A source reads insertions, a changelog (debezium-json: Mode
// [I,UB,UA,D]) or upserts by its PRIMARY KEY (upsert-kafka: [I,UA,D]);
// connector.SourceChangelog says which. An upsert source is followed by a
// Normalize node, Flink's ChangelogNormalize, which keeps the last row
// per key and emits a retract stream, so every operator above sees
// whole-row retractions.
//
// A sink takes insertions only (csv, json), any changelog (print,
// blackhole, debezium-json) or upserts by its PRIMARY KEY (upsert-kafka);
// connector.SinkChangelog says which. For a sink with a PRIMARY KEY fed
// updates, the planner derives the upsert keys of the sink's input
// (UpsertKeys, Flink's FlinkRelMdUpsertKeys simplified): sets of columns
// each of whose values identifies one live row, so that every change of
// a row is by that key. Then, as Flink's planner decides:
//
//   - if no upsert key lies within the primary key, a Materialize node
//     (Flink's SinkUpsertMaterializer, rank.Materialize) keyed by the
//     primary key turns the changelog into upserts by it;
//   - otherwise an upsert sink whose primary key is exactly an upsert key
//     drops the -U rows (Sink.DropBefore; Flink's ONLY_UPDATE_AFTER), and
//     one whose primary key is larger gets them, as tombstones
//     (upsert-kafka writes -U as a deletion, as Flink's sink does);
//   - a retract sink (print, debezium-json) gets the changelog as it is.
//
// planSinks does this after the optimizer's rules, so that it sees what
// they made (a Rank that became a deduplication); EXPLAIN shows the
// Normalize and Materialize nodes and the mode each sink writes.

// Normalize is Flink's ChangelogNormalize over the scan of an upsert
// source: see rank.Normalize.
type Normalize struct {
	Input Node
	// Key are the columns of the source's PRIMARY KEY.
	Key []int
}

func (n *Normalize) Schema() types.Schema { return n.Input.Schema() }
func (n *Normalize) Inputs() []Node       { return []Node{n.Input} }

// Mode is a retract stream: every change of a key takes its old row back
// whole.
func (n *Normalize) Mode() Mode {
	return Mode{Kinds: Inserts | UpdatesBefore | UpdatesAfter | Deletes}
}

func (n *Normalize) describe() string {
	return fmt.Sprintf("ChangelogNormalize(key=[%s])", strings.Join(colNames(n.Input.Schema(), n.Key), ", "))
}

// Materialize is Flink's SinkUpsertMaterializer in front of a sink with a
// PRIMARY KEY: see rank.Materialize.
type Materialize struct {
	Input Node
	// Key are the columns of the sink's PRIMARY KEY; Table names the sink.
	Key   []int
	Table string
}

func (m *Materialize) Schema() types.Schema { return m.Input.Schema() }
func (m *Materialize) Inputs() []Node       { return []Node{m.Input} }

// Mode is upserts by the sink's key.
func (m *Materialize) Mode() Mode {
	return Mode{Kinds: Inserts | UpdatesAfter | Deletes, Key: m.Key}
}

func (m *Materialize) describe() string {
	return fmt.Sprintf("SinkUpsertMaterializer(pk=[%s])", strings.Join(colNames(m.Input.Schema(), m.Key), ", "))
}

func colNames(s types.Schema, cols []int) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = s[c].Name
	}
	return out
}

// uid names the operator's state: derived from its input's columns,
// where it stands (the tables it reads) and its key.
func (n *Normalize) uid() string {
	return "normalize-" + uidHash(keyedCanon("changelog-normalize", n.Input, n.Key))
}

func (m *Materialize) uid() string {
	return "materialize-" + uidHash(keyedCanon("sink-materializer "+m.Table, m.Input, m.Key))
}

func keyedCanon(kind string, in Node, key []int) string {
	s := in.Schema()
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nsources %s\n", kind, strings.Join(sourceTables(in), ","))
	for i := range s {
		fmt.Fprintf(&b, "in %s\n", canonCol(s, i))
	}
	for _, k := range key {
		fmt.Fprintf(&b, "key %s\n", canonCol(s, k))
	}
	return b.String()
}

// scanMode is the changelog mode of a table's scan.
func scanMode(t *Table) Mode {
	switch connector.SourceChangelog(t.Source()) {
	case connector.Retracts:
		return Mode{Kinds: Inserts | UpdatesBefore | UpdatesAfter | Deletes}
	case connector.Upserts:
		return Mode{Kinds: Inserts | UpdatesAfter | Deletes, Key: t.keyCols(t.Schema)}
	}
	return InsertOnly
}

// keyCols are the indexes of the PRIMARY KEY's columns in s.
func (t *Table) keyCols(s types.Schema) []int {
	var out []int
	for _, name := range t.PrimaryKey {
		if i := s.Index(name); i >= 0 {
			out = append(out, i)
		}
	}
	if len(out) != len(t.PrimaryKey) {
		return nil
	}
	return out
}

// planSinks wraps the scans of upsert sources in a Normalize and decides
// how each sink with a primary key takes its input.
func planSinks(n Node) Node {
	switch n := n.(type) {
	case *Normalize:
		return n
	case *Scan:
		if m := scanMode(n.Table); m.Key != nil {
			return &Normalize{Input: n, Key: m.Key}
		}
		return n
	case *Sink:
		in := planSinks(n.Input)
		s := *n
		s.Input, s.DropBefore = in, false
		if n.Table == nil || len(n.Table.PrimaryKey) == 0 || ChangelogMode(in).InsertOnly() {
			return &s
		}
		if _, ok := in.(*Materialize); ok {
			return &s
		}
		pk := n.Table.keyCols(in.Schema())
		keys := UpsertKeys(in)
		if !slices.ContainsFunc(keys, func(k []int) bool { return within(k, pk) }) {
			s.Input = &Materialize{Input: in, Key: pk, Table: n.Table.Name}
			return &s
		}
		kind, _ := connector.SinkChangelog(n.Table.Sink())
		s.DropBefore = kind == connector.Upserts && slices.ContainsFunc(keys, func(k []int) bool { return within(k, pk) && within(pk, k) })
		return &s
	}
	ins := n.Inputs()
	out := make([]Node, len(ins))
	changed := false
	for i, in := range ins {
		out[i] = planSinks(in)
		changed = changed || out[i] != in
	}
	if !changed {
		return n
	}
	return withInputs(n, out)
}

// within reports whether every column of a is in b.
func within(a, b []int) bool {
	for _, c := range a {
		if !slices.Contains(b, c) {
			return false
		}
	}
	return true
}

// UpsertKeys are the upsert keys of n's output, as Flink's
// FlinkRelMdUpsertKeys derives them, simplified: sets of columns such
// that each value of them identifies one live row, and every change of
// that row (its retraction and its replacement) is made by one subtask in
// order. A group aggregate's are its group keys (none: the empty key, one
// row); a deduplication's its partition key; a Top-N's its partition key
// and row number when the number is output, and its partition key when it
// keeps one row; a normalized upsert source's its primary key. A join's
// are the unions of a key of each side that contain the side's join keys,
// and one side's keys when the other side is unique on its join keys and
// the join does not pad the first side's rows with NULLs (a semi or anti
// join keeps its left side's). A filter keeps its input's; a projection
// those whose columns it outputs unchanged (or cast to a type that keeps
// them distinct). Insert-only scans have none, unions none (Flink derives
// none for UNION ALL).
func UpsertKeys(n Node) [][]int {
	switch n := n.(type) {
	case *GroupAgg:
		k := make([]int, len(n.Keys))
		for i := range k {
			k[i] = i
		}
		return [][]int{k}
	case *Normalize:
		return [][]int{n.Key}
	case *Materialize:
		return [][]int{n.Key}
	case *Rank:
		in := containing(UpsertKeys(n.Input), n.Partition)
		if _, _, ok := n.Dedup(); ok {
			return append(in, slices.Clone(n.Partition))
		}
		if n.RowNum {
			in = append(in, append(slices.Clone(n.Partition), len(n.Input.Schema())))
		}
		if n.End == 1 {
			in = append(in, slices.Clone(n.Partition))
		}
		return in
	case *Filter:
		return UpsertKeys(n.Input)
	case *Project:
		return projectKeys(n, UpsertKeys(n.Input))
	case *Join:
		return joinKeys(n)
	}
	return nil
}

// containing keeps the keys that contain cols: the changes of such a key
// meet in one subtask behind an exchange on cols.
func containing(keys [][]int, cols []int) [][]int {
	var out [][]int
	for _, k := range keys {
		if within(cols, k) {
			out = append(out, k)
		}
	}
	return out
}

// projectKeys maps keys through p.
func projectKeys(p *Project, keys [][]int) [][]int {
	var out [][]int
next:
	for _, k := range keys {
		var m []int
		for _, c := range k {
			at := slices.IndexFunc(p.Exprs, func(e expr.Expr) bool { return keyPreserving(e, c) })
			if at < 0 {
				continue next
			}
			m = append(m, at)
		}
		out = append(out, m)
	}
	return out
}

// keyPreserving reports whether e is column c, or a cast of it that maps
// distinct values to distinct values: to a wider number of the same
// kind, or a string to an unbounded string.
func keyPreserving(e expr.Expr, c int) bool {
	switch e := e.(type) {
	case *expr.Col:
		return e.Index == c
	case *expr.Cast:
		col, ok := e.X.(*expr.Col)
		if !ok || col.Index != c {
			return false
		}
		from, to := col.T, e.T
		switch {
		case types.Same(from, to):
			return true
		case from.Kind == types.Int && to.Kind == types.BigInt:
			return true
		case from.Kind == types.String && to.Kind == types.String:
			return to.Precision == 0 || from.Precision > 0 && from.Precision <= to.Precision
		}
	}
	return false
}

// joinKeys are a join's upsert keys (UpsertKeys).
func joinKeys(j *Join) [][]int {
	left := containing(UpsertKeys(j.Left), j.LeftKeys)
	if j.Kind.filtering() {
		return left
	}
	right := containing(UpsertKeys(j.Right), j.RightKeys)
	off := len(j.Left.Schema())
	shift := func(k []int) []int {
		out := make([]int, len(k))
		for i, c := range k {
			out[i] = c + off
		}
		return out
	}
	var out [][]int
	for _, l := range left {
		for _, r := range right {
			out = append(out, append(slices.Clone(l), shift(r)...))
		}
	}
	unique := func(keys [][]int, on []int) bool {
		return slices.ContainsFunc(keys, func(k []int) bool { return within(k, on) })
	}
	if unique(UpsertKeys(j.Right), j.RightKeys) && !j.Kind.RightOuter() {
		out = append(out, left...)
	}
	if unique(UpsertKeys(j.Left), j.LeftKeys) && j.Kind != LeftJoin && j.Kind != FullJoin {
		for _, r := range right {
			out = append(out, shift(r))
		}
	}
	return out
}

// normalize compiles a ChangelogNormalize: a vertex behind a hash
// exchange on the key, so all changes of a key meet in one subtask, in
// the order their partition holds them.
func (c *compiler) normalize(n *Normalize) (*stage, error) {
	s, err := c.node(n.Input)
	if err != nil {
		return nil, err
	}
	uid := n.uid()
	if scan, ok := n.Input.(*Scan); ok && s.src != nil {
		// A table read twice (a self-join, two INSERTs of a statement
		// set) has a second source uid (sourceUID), and a second state.
		uid += strings.TrimPrefix(s.src.UID, "source-"+scan.Table.Name)
	}
	spec := rank.NormalizeSpec{UID: uid, In: s.schema, Key: n.Key}
	spec.TTL = c.stateTTLs(nil, s.schema)[0]
	return c.keyedStage(s, "ChangelogNormalize", n.describe()+ttlName(spec.TTL), spec.UID, spec.Fingerprint(), n.Key,
		func() (exec.Operator, error) { return rank.NewNormalize(spec) })
}

// materialize compiles a SinkUpsertMaterializer behind a hash exchange on
// the sink's key.
func (c *compiler) materialize(n *Materialize) (*stage, error) {
	s, err := c.node(n.Input)
	if err != nil {
		return nil, err
	}
	spec := rank.MaterializeSpec{UID: n.uid(), In: s.schema, Key: n.Key}
	spec.TTL = c.stateTTLs(nil, s.schema)[0]
	return c.keyedStage(s, "SinkUpsertMaterializer", n.describe()+ttlName(spec.TTL), spec.UID, spec.Fingerprint(), n.Key,
		func() (exec.Operator, error) { return rank.NewMaterialize(spec) })
}

func (c *compiler) keyedStage(s *stage, name, desc, uid, fp string, key []int, op func() (exec.Operator, error)) (*stage, error) {
	if _, err := op(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnsupported, desc, err)
	}
	v := c.vertex(name)
	v.Inputs = []*exec.Edge{{From: s.v, Kind: exec.Hash, Keys: key}}
	v.Ops = append(v.Ops, exec.OpSpec{Name: desc + " uid=" + uid, UID: uid, Fingerprint: fp, Out: s.schema, New: op})
	return &stage{v: v, schema: s.schema}, nil
}

// sinkParallelism gives an upsert sink the parallelism of its
// sink.parallelism option: a vertex of its own behind a hash exchange on
// its primary key, so that all changes of a key are written by one
// subtask, in order, as Flink's sink does when its parallelism differs.
func (c *compiler) sinkParallelism(s *stage, t *Table) *stage {
	p, err := strconv.Atoi(t.Options["sink.parallelism"])
	if err != nil || p == s.v.Parallelism {
		return s // no such option (the connector checked its value)
	}
	v := c.vertex("Sink: " + t.Name)
	v.Parallelism = p
	v.Inputs = []*exec.Edge{{From: s.v, Kind: exec.Hash, Keys: t.keyCols(s.schema)}}
	v.SinkName, v.SinkUID, s.v.SinkName, s.v.SinkUID = s.v.SinkName, s.v.SinkUID, "", ""
	return &stage{v: v, schema: s.schema}
}

// dropBefore adds the operator that drops -U rows in front of an upsert
// sink keyed as its input (Sink.DropBefore).
func (c *compiler) dropBefore(s *stage) {
	s.v.Ops = append(s.v.Ops, exec.OpSpec{Name: "DropUpdateBefore", Out: s.schema,
		New: func() (exec.Operator, error) { return &rank.DropUpdateBefore{}, nil }})
}
