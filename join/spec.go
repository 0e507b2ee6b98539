package join

import (
	"fmt"
	"strings"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// Kind is the kind of a regular join.
type Kind uint8

// The join kinds.
const (
	Inner Kind = iota
	LeftOuter
	RightOuter
	FullOuter
	// Semi emits each left row that has a match, once, with the left
	// columns only: x IN (SELECT ...), EXISTS (...).
	Semi
	// Anti emits each left row that has no match, with the left columns
	// only, and retracts it when a match comes: NOT EXISTS (...), NOT IN
	// (SELECT ...).
	Anti
)

func (k Kind) String() string {
	return [...]string{"inner", "left-outer", "right-outer", "full-outer", "semi", "anti"}[k]
}

// filtering reports whether the join emits left rows only, those with a
// match (Semi) or without one (Anti).
func (k Kind) filtering() bool { return k == Semi || k == Anti }

// outer reports whether side s (0 left, 1 right) keeps its rows without a
// match, NULL-padded.
func (k Kind) outer(s int) bool {
	if s == 0 {
		return k == LeftOuter || k == FullOuter
	}
	return k == RightOuter || k == FullOuter
}

// Spec is a regular join: the rows of Left and Right whose key columns
// are equal, LeftKeys[i] = RightKeys[i], and for which Residual, over a
// row of Left's columns followed by Right's, is TRUE.
type Spec struct {
	UID         string
	Kind        Kind
	Left, Right types.Schema
	// LeftKeys and RightKeys pair the equi-join columns. Each pair must
	// encode alike (the same type, or integers of any width).
	LeftKeys, RightKeys []int
	// Residual is the rest of the ON condition, or nil.
	Residual expr.Expr
	// NullAware makes an anti join one of NOT IN (SELECT ...), whose
	// one key is compared with SQL's three-valued =: a left row is kept
	// only if the right side is empty, or if its key is not NULL, no
	// right key is NULL, and none equals it. Its state counts the right
	// rows and those with a NULL key (see the package documentation); it
	// runs in one subtask, since any right row decides for every left row.
	NullAware bool
	// Out is the output schema: Left's columns then Right's (a semi
	// join's: Left's).
	Out types.Schema
	// TTL is each side's state time-to-live and clock (exec.StateTTL):
	// a row expires ttl after its last write, by both sides' rowtimes or
	// both by processing time. Not part of the fingerprint: a restore may
	// change it. A null-aware join keeps its state (its counts of the
	// right side cover every row).
	TTL [2]exec.StateTTL
}

// fingerprintVersion versions the state layout below (keys, values).
const fingerprintVersion = "join/2"

// Fingerprint identifies the layout of the join's state: each side's
// rows, its keys, and what the match counts count (the kind and the
// residual condition), so a restore never takes back rows of another
// shape or counts of another condition.
func (s *Spec) Fingerprint() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s kind=%s\n", fingerprintVersion, s.Kind)
	if s.NullAware {
		b.WriteString("null-aware\n")
	}
	for side, sc := range []types.Schema{s.Left, s.Right} {
		for _, f := range sc {
			fmt.Fprintf(&b, "%d col %s\n", side, f.Type.Plain().Nullable())
		}
		for _, k := range [][]int{s.LeftKeys, s.RightKeys}[side] {
			fmt.Fprintf(&b, "%d key %d\n", side, k)
		}
	}
	if s.Residual != nil {
		fmt.Fprintf(&b, "residual %s\n", s.Residual)
	}
	return fmt.Sprintf("%016x", memseg.Hash([]byte(b.String())))
}

// program compiles the residual condition over a row of Left's columns
// then Right's; nil without one.
func (s *Spec) program() (*expr.Program, error) {
	if s.Residual == nil {
		return nil, nil
	}
	p, err := expr.Compile(s.Residual, append(s.Left[:len(s.Left):len(s.Left)], s.Right...))
	if err != nil {
		return nil, fmt.Errorf("join condition: %w", err)
	}
	return p, nil
}

// check reports a spec the operator cannot run: a column without a
// normalized key encoding (the rows are stored as their keys), or key
// pairs that would not encode alike.
func (s *Spec) check() error {
	if len(s.LeftKeys) == 0 || len(s.LeftKeys) != len(s.RightKeys) {
		return fmt.Errorf("join: %d left keys for %d right keys", len(s.LeftKeys), len(s.RightKeys))
	}
	if s.NullAware && (s.Kind != Anti || len(s.LeftKeys) != 1 || s.Residual != nil) {
		return fmt.Errorf("join: a null-aware join is an anti join on one key without a residual condition")
	}
	for _, sc := range []types.Schema{s.Left, s.Right} {
		for _, f := range sc {
			if _, err := memseg.TypeOf(f.Type.Arrow()); err != nil {
				return fmt.Errorf("join: column %s of type %s cannot be kept in join state", f.Name, f.Type)
			}
		}
	}
	for i, l := range s.LeftKeys {
		lt, _ := memseg.TypeOf(s.Left[l].Type.Arrow())
		rt, _ := memseg.TypeOf(s.Right[s.RightKeys[i]].Type.Arrow())
		if family(lt) != family(rt) || s.Left[l].Type.Kind == types.Decimal && !types.Same(s.Left[l].Type, s.Right[s.RightKeys[i]].Type) {
			return fmt.Errorf("join: key %s (%s) and %s (%s) do not compare alike", s.Left[l].Name, s.Left[l].Type, s.Right[s.RightKeys[i]].Name, s.Right[s.RightKeys[i]].Type)
		}
	}
	return nil
}

// family groups the memseg types whose equal values encode alike: INT
// and BIGINT are both encoded as an int64.
func family(t memseg.Type) memseg.Type {
	if t == memseg.Int32 {
		return memseg.Int64
	}
	return t
}
