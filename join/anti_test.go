package join

import (
	"testing"

	"github.com/strandsql/strand/exec"
)

func antiSpec(nullAware bool) Spec {
	s := spec(Anti)
	s.Out, s.NullAware = side, nullAware
	return s
}

// TestAntiJoinRetractsOnMatch: a left row shows while nothing matches it,
// is retracted (all its copies) at its first match and shown again when
// its last match is retracted; a NULL key matches nothing and shows as
// it comes.
func TestAntiJoinRetractsOnMatch(t *testing.T) {
	j := open(t, antiSpec(false), nil)
	run(t, j, []step{
		{exec.Left, []row{ins(1, "a"), ins(1, "a"), ins(2, "b"), insNull("n")}, []string{"+I[1, a]", "+I[1, a]", "+I[2, b]", "+I[null, n]"}},
		{exec.Right, []row{ins(1, "x")}, []string{"-D[1, a]", "-D[1, a]"}},
		{exec.Right, []row{ins(1, "y"), insNull("z")}, nil},
		{exec.Left, []row{ins(1, "c"), del(2, "b"), delNull("n")}, []string{"-D[2, b]", "-D[null, n]"}},
		{exec.Right, []row{del(1, "x"), del(1, "y")}, []string{"+I[1, a]", "+I[1, a]", "+I[1, c]"}},
	})
}

// TestNullAwareAntiJoin: NOT IN's three-valued logic. Over no right rows
// every left row shows, a NULL key's too; the first right row hides the
// NULL keys and the matches; a right NULL hides every row, and its
// retraction shows them again.
func TestNullAwareAntiJoin(t *testing.T) {
	j := open(t, antiSpec(true), nil)
	run(t, j, []step{
		{exec.Left, []row{ins(1, "a"), ins(2, "b"), insNull("n")}, []string{"+I[1, a]", "+I[2, b]", "+I[null, n]"}},
		{exec.Right, []row{ins(1, "x")}, []string{"-D[1, a]", "-D[null, n]"}},
		{exec.Right, []row{insNull("z")}, []string{"-D[2, b]"}},
		{exec.Left, []row{ins(3, "c"), insNull("m")}, nil},
		{exec.Right, []row{ins(2, "y")}, nil},
		{exec.Right, []row{delNull("z")}, []string{"+I[3, c]"}},
		{exec.Right, []row{del(1, "x"), del(2, "y")}, []string{"+I[1, a]", "+I[2, b]", "+I[null, m]", "+I[null, n]"}},
	})
}
