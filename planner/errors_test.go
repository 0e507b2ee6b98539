package planner

import (
	"testing"
)

// A planning error echoes the SQL with its control characters escaped,
// in the message and in the source line, the caret under the column
// (moved past the escape of the NUL before it).
func TestFormatErrorEscapes(t *testing.T) {
	s := session(t)
	src := "SELECT `a\x00b`, i FROM t WHERE `\x1b[2J` > 0"
	err := s.ExecScript(t.Context(), src)
	want := `q.sql:1:30: unknown column '\x1b[2J' (columns: ts, i, b, d, m, s)
  SELECT ` + "`a\\x00b`" + `, i FROM t WHERE ` + "`\\x1b[2J`" + ` > 0
                                  ^`
	if got := FormatError("q.sql", src, err); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
