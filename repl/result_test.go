package repl

import (
	"bytes"
	"strings"
	"testing"

	"github.com/strandsql/strand/session"
	"github.com/strandsql/strand/types"
)

var kv = types.Schema{{Name: "k", Type: types.Type{Kind: types.String}}, {Name: "v", Type: types.Type{Kind: types.BigInt}}}

// TestTableView feeds the table view updates and deletes: it shows the
// current rows, the newest maxRows of them, once at the end off a terminal.
func TestTableView(t *testing.T) {
	var out bytes.Buffer
	r := newResult(&out, session.Result{Schema: kv, Mode: modeTable, MaxRows: 2}, false, 24)
	rows := [][]string{{"+I", "a", "1"}, {"+I", "b", "1"}, {"-U", "a", "1"}, {"+U", "a", "2"}, {"+I", "c", "1"}, {"-D", "b", "1"}}
	if err := r.add(rows); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Fatalf("the table view printed before the end: %q", out.String())
	}
	r.end(false)
	got := out.String()
	want := "| a                              |                    2 |\n| c                              |                    1 |\n"
	if !strings.Contains(got, want) || strings.Contains(got, "| b ") || !strings.Contains(got, "6 rows in set") {
		t.Errorf("table view:\n%s", got)
	}
}

// TestChangelog prints each row with its kind in the op column.
func TestChangelog(t *testing.T) {
	var out bytes.Buffer
	r := newResult(&out, session.Result{Schema: kv, Mode: modeChangelog, MaxRows: 1000}, false, 24)
	if err := r.add([][]string{{"+I", "a", "1"}, {"-U", "a", "1"}, {"+U", "a", "2"}}); err != nil {
		t.Fatal(err)
	}
	r.end(false)
	for _, line := range []string{"| op | k ", "| +I | a ", "| -U | a ", "| +U | a "} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("no %q in\n%s", line, out.String())
		}
	}
}
