package planner

import (
	"testing"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

func TestModeString(t *testing.T) {
	for _, c := range []struct {
		m    Mode
		want string
	}{
		{InsertOnly, "[I]"},
		{Mode{Kinds: Inserts | Deletes}, "[I,D]"},
		{Mode{Kinds: Inserts | UpdatesBefore | UpdatesAfter | Deletes}, "[I,UB,UA,D]"},
		{Mode{Kinds: Inserts | UpdatesAfter | Deletes, Key: []int{0}}, "[I,UA,D]"},
	} {
		if got := c.m.String(); got != c.want {
			t.Errorf("%v: %s, want %s", c.m.Kinds, got, c.want)
		}
	}
	if (Mode{Kinds: Inserts | Deletes}).InsertOnly() || !InsertOnly.InsertOnly() {
		t.Fatal("InsertOnly")
	}
}

func joinOf(kind JoinKind) *Join {
	tab := &Table{Name: "t", Schema: types.Schema{{Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TString}}}
	return &Join{Left: &Scan{Table: tab}, Right: &Scan{Table: tab}, Kind: kind, LeftKeys: []int{0}, RightKeys: []int{0}}
}

func TestJoinModes(t *testing.T) {
	if m := ChangelogMode(joinOf(InnerJoin)); m.String() != "[I]" {
		t.Errorf("inner join of insert-only inputs: %s", m)
	}
	for _, k := range []JoinKind{LeftJoin, RightJoin, FullJoin} {
		if m := ChangelogMode(joinOf(k)); m.String() != "[I,D]" {
			t.Errorf("%s: %s, want [I,D]", k, m)
		}
	}
	// An inner join over an outer join's output passes its retractions on.
	outer := joinOf(LeftJoin)
	j := &Join{Left: outer, Right: joinOf(InnerJoin), Kind: InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}}
	if m := ChangelogMode(j); m.String() != "[I,D]" {
		t.Errorf("inner over outer: %s", m)
	}
	if got := updater(&Filter{Input: j, Cond: &expr.Lit{V: types.BoolValue(true)}}); got != outer {
		t.Errorf("the updates come from the outer join, not %v", got)
	}
}

func TestProjectKeepsUpsertKeyOnlyWithItsColumns(t *testing.T) {
	// No node makes an upsert stream yet; the rule is tested on a mode
	// given directly through a stand-in input.
	in := &upsertStub{Node: joinOf(InnerJoin).Left}
	keep := &Project{Input: in, Exprs: []expr.Expr{&expr.Col{Index: 1}, &expr.Col{Index: 0}}}
	if m := ChangelogMode(keep); m.Key == nil || m.Key[0] != 1 {
		t.Errorf("key through a projection: %+v", m)
	}
	drop := &Project{Input: in, Exprs: []expr.Expr{&expr.Col{Index: 1}}}
	if m := ChangelogMode(drop); m.Key != nil || m.Kinds&UpdatesBefore == 0 {
		t.Errorf("a projection without the key makes a retract stream: %+v", m)
	}
}

// upsertStub stands for an upsert source keyed by its first column.
type upsertStub struct{ Node }

func (upsertStub) Mode() Mode { return Mode{Kinds: Inserts | UpdatesAfter | Deletes, Key: []int{0}} }
