package tests

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/queries/nexmark"
	"github.com/strandsql/strand/session"
)

var updateUIDs = flag.Bool("update", false, "rewrite testdata/uids.golden")

// TestUIDsGolden pins the uid of every stateful operator of every example
// query, as strand plans it, in testdata/uids.golden: a change to how
// uids are derived, which makes every savepoint of such a job unusable,
// shows up as a diff there. go test ./tests -run TestUIDsGolden -update
// rewrites it when the change is meant (and uid.go's uidVersion says why).
func TestUIDsGolden(t *testing.T) {
	scripts := map[string]string{}
	files, _ := filepath.Glob("../queries/*.sql")
	for _, f := range files {
		scripts[f] = readFile(t, f)
	}
	// A Nexmark query runs after the shared DDL, as in
	// strand run queries/nexmark/ddl.sql queries/nexmark/q7w.sql.
	ddl := readFile(t, "../queries/nexmark/ddl.sql")
	queries, _ := filepath.Glob("../queries/nexmark/q*.sql")
	for _, f := range queries {
		scripts[f] = nexmark.Fill(ddl+"\n"+readFile(t, f), t.TempDir(), "golden")
	}
	if len(files) < 4 || len(queries) < 6 {
		t.Fatalf("example queries: %v %v", files, queries)
	}
	var b strings.Builder
	for _, f := range append(files, queries...) {
		writeUIDs(t, &b, strings.TrimPrefix(f, "../"), scripts[f])
	}
	got := b.String()
	const golden = "testdata/uids.golden"
	if *updateUIDs {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := readFile(t, golden)
	if got != want {
		t.Errorf("the uids of the example queries changed; if that is meant, bump uidVersion in planner/uid.go and rerun with -update.\n%s",
			lineDiff(want, got))
	}
}

// writeUIDs runs the DDL and SET statements of one example in a fresh
// session and writes the stateful operators of each of its queries.
func writeUIDs(t *testing.T, w io.Writer, name, src string) {
	t.Helper()
	stmts, err := parser.Parse(src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s := session.New(io.Discard, io.Discard)
	n := 0
	for _, st := range stmts {
		switch st.(type) {
		case *parser.Insert, parser.Query:
		default:
			if err := s.Exec(t.Context(), st); err != nil {
				t.Fatalf("%s", planner.FormatError(name, src, err))
			}
			continue
		}
		n++
		plan, err := planner.PlanQuery(s.Catalog, st)
		if err != nil {
			t.Fatalf("%s", planner.FormatError(name, src, err))
		}
		fmt.Fprintf(w, "%s query %d\n", name, n)
		var walk func(planner.Node)
		walk = func(n planner.Node) {
			if uid := planner.UID(n); uid != "" {
				op, _, _ := strings.Cut(planner.Explain(n), "(")
				fmt.Fprintf(w, "  %s %s\n", op, uid)
			}
			for _, in := range n.Inputs() {
				walk(in)
			}
		}
		walk(planner.Optimize(plan))
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
