package nexmark

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// TestScripts: every query has a file, and no query file declares the
// shared tables again (they live in ddl.sql only).
func TestScripts(t *testing.T) {
	for _, q := range Queries {
		src, err := Script(q)
		if err != nil {
			t.Fatal(err)
		}
		query, _ := Files.ReadFile(q + ".sql")
		for _, table := range []string{"bid", "auction", "person"} {
			if strings.Contains(string(query), "CREATE TABLE "+table+" ") {
				t.Errorf("%s.sql declares %s again", q, table)
			}
		}
		if !strings.Contains(src, "INSERT INTO") {
			t.Errorf("%s has no INSERT", q)
		}
	}
}

// TestQueriesListsEveryFile: every q<name>.sql is in Queries, so that
// strand bench's "all" runs it.
func TestQueriesListsEveryFile(t *testing.T) {
	files, err := fs.Glob(Files, "q*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if q := strings.TrimSuffix(f, ".sql"); !slices.Contains(Queries, q) {
			t.Errorf("%s is not in Queries", f)
		}
	}
}
