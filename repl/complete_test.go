package repl

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/strandsql/strand/session"
)

// TestComplete checks what Tab offers where: keywords in the case typed,
// table and column names, SET keys after SET ', connector option keys of
// the connector named inside WITH (, also on a continuation line.
func TestComplete(t *testing.T) {
	var out bytes.Buffer
	sess := session.New(&out, &out)
	if err := sess.ExecScript(context.Background(), "CREATE TABLE clicks (user_id BIGINT, url STRING) WITH ('connector' = 'blackhole');"); err != nil {
		t.Fatal(err)
	}
	in := &input{}
	c := &completer{sess: sess, in: in}
	do := func(line string) []string {
		cands, _ := c.Do([]rune(line), len([]rune(line)))
		var s []string
		for _, r := range cands {
			s = append(s, string(r))
		}
		slices.Sort(s)
		return s
	}
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"sel", []string{"ect"}},
		{"SELECT * FROM cl", []string{"icks"}},
		{"SELECT url FROM clicks WHERE us", []string{"er_id"}},
		{"SELECT clicks.u", []string{"rl", "ser_id"}},
		{"SELECT up", []string{"PER"}},
		{"SET 'sql-client.execution.res", []string{"ult-mode'"}},
		{"CREATE TABLE x (a INT) WITH ('connector' = 'print', 'pr", []string{"int-identifier'"}},
		{"CREATE TABLE x (a INT) WITH ('connector' = 'da", []string{"tagen'"}},
		{"SELECT 'pr", nil},
	} {
		if got := do(tc.line); !slices.Equal(got, tc.want) {
			t.Errorf("Tab after %q offers %q, want %q", tc.line, got, tc.want)
		}
	}
	in.add("CREATE TABLE y (a INT) WITH (")
	in.add("  'connector' = 'datagen',")
	if got := do("  'rows-per"); !slices.Equal(got, []string{"-second'"}) {
		t.Errorf("on a continuation line Tab offers %q", got)
	}
}
