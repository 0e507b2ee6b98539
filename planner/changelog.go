package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
)

// Changes is the set of row kinds a stream may carry (exec.RowKind), as
// Flink's ModifyKindSet.
type Changes uint8

// The row kinds of a changelog: insertions (I), update-before (UB),
// update-after (UA), deletions (D).
const (
	Inserts Changes = 1 << iota
	UpdatesBefore
	UpdatesAfter
	Deletes
)

// Mode is a plan node's changelog mode: which kinds of rows its output
// carries, and, for an upsert stream, the key its updates and deletions
// are by. An insert-only stream has Kinds == Inserts; a retract stream
// carries update-before rows (or deletions) that take earlier rows back
// whole; an upsert stream has a key and no update-before rows.
type Mode struct {
	Kinds Changes
	// Key are the columns of an upsert stream's key, nil otherwise.
	Key []int
}

// InsertOnly is the mode of an append-only stream.
var InsertOnly = Mode{Kinds: Inserts}

// InsertOnly reports whether m carries insertions only.
func (m Mode) InsertOnly() bool { return m.Kinds&^Inserts == 0 }

// String renders m as Flink's EXPLAIN CHANGELOG_MODE does: [I],
// [I,UB,UA,D], or [I,UA,D] for an upsert stream.
func (m Mode) String() string {
	var kinds []string
	for i, name := range []string{"I", "UB", "UA", "D"} {
		if m.Kinds&(1<<i) != 0 {
			kinds = append(kinds, name)
		}
	}
	return "[" + strings.Join(kinds, ",") + "]"
}

// ChangelogMode derives the changelog mode of n's output from its inputs',
// as Flink's FlinkChangelogModeInferenceProgram does bottom-up: sources
// are insert-only, filters and projections keep their input's mode (an
// upsert key survives a projection only if every key column does), window
// operators take and produce insertions only, and a join produces what
// its kind and its inputs' modes make (Join.Mode).
func ChangelogMode(n Node) Mode {
	if m, ok := n.(moder); ok {
		return m.Mode()
	}
	switch n := n.(type) {
	case *Scan:
		return scanMode(n.Table)
	case *WindowTVF, *WindowAgg, *TopN:
		return InsertOnly
	case *Filter:
		return ChangelogMode(n.Input)
	case *Sink:
		return n.mode()
	case *Project:
		in := ChangelogMode(n.Input)
		if in.Key == nil {
			return in
		}
		key := make([]int, 0, len(in.Key))
		for _, k := range in.Key {
			at := slices.IndexFunc(n.Exprs, func(e expr.Expr) bool {
				c, ok := e.(*expr.Col)
				return ok && c.Index == k
			})
			if at < 0 {
				// Without its key an upsert stream cannot be applied:
				// Flink then asks its input for retractions instead.
				return Mode{Kinds: in.Kinds | UpdatesBefore}
			}
			key = append(key, at)
		}
		return Mode{Kinds: in.Kinds, Key: key}
	}
	panic(fmt.Sprintf("planner: no changelog mode for %T", n))
}

// moder is a node that derives its own changelog mode (a Join).
type moder interface{ Mode() Mode }

// checkChangelog is the planner pass that refuses, before anything runs, an
// operator or sink that would receive updates it cannot take: window
// operators take insert-only input, and so do sinks that can only append
// (Table.TakesUpdates). The error points at the sink, and names the join
// that makes the updates.
func checkChangelog(root Node) error {
	var err error
	var walk func(n Node)
	walk = func(n Node) {
		for _, in := range n.Inputs() {
			if walk(in); err != nil {
				return
			}
		}
		switch n := n.(type) {
		case *WindowTVF, *WindowAgg, *TopN, *Over:
			in := n.Inputs()[0]
			if m := ChangelogMode(in); !m.InsertOnly() {
				err = updatesError(in, m, describeOp(n)+" takes insert-only input")
			}
		case *Rank:
			// A deduplication takes insert-only input, as Flink's.
			if _, _, ok := n.Dedup(); ok {
				if m := ChangelogMode(n.Input); !m.InsertOnly() {
					err = updatesError(n.Input, m, "a deduplication takes insert-only input")
				}
			}
		case *GroupAgg:
			if m := ChangelogMode(n.Input); m.Kinds&UpdatesAfter != 0 && m.Kinds&UpdatesBefore == 0 {
				err = updatesError(n.Input, m, "a group aggregate takes insertions and retractions, not upserts")
			}
		case *Sink:
			m := ChangelogMode(n.Input)
			if m.InsertOnly() || n.Table == nil {
				return
			}
			if why := n.Table.Appends(); why != "" {
				err = updatesError(n.Input, m, fmt.Sprintf("table '%s' takes insert-only input (%s), as in Flink", n.Table.Name, why))
				err.(*Error).Pos = n.At
			}
		case *Normalize, *Materialize:
			// They take any changelog.
		}
	}
	walk(root)
	return err
}

// describeOp names an operator kind in messages.
func describeOp(n Node) string {
	switch n.(type) {
	case *WindowTVF:
		return "a window table function"
	case *WindowAgg:
		return "a window aggregate"
	case *TopN:
		return "a window Top-N"
	case *Over:
		return "an OVER aggregation"
	}
	return fmt.Sprintf("%T", n)
}

// updatesError explains that what consumes in cannot take its updates,
// at the join that makes them.
func updatesError(in Node, m Mode, what string) error {
	var at parser.Pos
	from := "its input"
	switch u := updater(in).(type) {
	case *Join:
		at, from = u.At, fmt.Sprintf("the %s at %d:%d", u.Kind, u.At.Line, u.At.Column)
	case *GroupAgg:
		at, from = u.At, fmt.Sprintf("the GROUP BY at %d:%d", u.At.Line, u.At.Column)
		if u.What != "" {
			from = fmt.Sprintf("the %s at %d:%d", u.What, u.At.Line, u.At.Column)
		} else if len(u.Keys) == 0 {
			from = fmt.Sprintf("the aggregate at %d:%d", u.At.Line, u.At.Column)
		}
	case *Scan:
		at, from = u.At, fmt.Sprintf("the changelog source table '%s' at %d:%d", u.Table.Name, u.At.Line, u.At.Column)
	}
	return errorf(at, ErrUnsupported, "%s, but %s produces updates (changelog mode %s)", what, from, m)
}

// updater finds the node under n, nearest first, that turns insertions
// into updates: a Join or a GroupAgg, or the scan of a changelog source.
func updater(n Node) Node {
	if s, ok := n.(*Scan); ok && !scanMode(s.Table).InsertOnly() {
		return s
	}
	_, isJoin := n.(*Join)
	_, isAgg := n.(*GroupAgg)
	if isJoin && !ChangelogMode(n).InsertOnly() || isAgg {
		for _, in := range n.Inputs() {
			if !ChangelogMode(in).InsertOnly() {
				if deeper := updater(in); deeper != nil {
					return deeper
				}
			}
		}
		return n
	}
	for _, in := range n.Inputs() {
		if u := updater(in); u != nil {
			return u
		}
	}
	return nil
}

// withMode adds a node's changelog mode to its EXPLAIN line, inside its
// parentheses as Flink's EXPLAIN CHANGELOG_MODE shows it:
// Calc(select=[a], changelogMode=[I]).
func withMode(line string, m Mode) string {
	if strings.HasSuffix(line, "()") {
		return line[:len(line)-1] + "changelogMode=" + m.String() + ")"
	}
	if strings.HasSuffix(line, ")") {
		return line[:len(line)-1] + ", changelogMode=" + m.String() + ")"
	}
	return line + ", changelogMode=" + m.String()
}

// CheckExplainDetails accepts the explain details strand has:
// CHANGELOG_MODE, whose changelog modes every EXPLAIN shows anyway. Flink's
// other details are refused where they are written.
func CheckExplainDetails(details []*parser.Ident) error {
	for _, d := range details {
		if name := d.Parts[0]; name != "CHANGELOG_MODE" {
			return errorf(d.Start, ErrUnsupported, "EXPLAIN %s is not supported (EXPLAIN and EXPLAIN CHANGELOG_MODE are; both show each node's changelog mode)", name)
		}
	}
	return nil
}
