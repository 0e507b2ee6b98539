package nexmark

import (
	"strings"
	"testing"
)

// TestFilesStartWithDDL keeps each query file's copy of the DDL the same
// as ddl.sql, so the queries read the same tables.
func TestFilesStartWithDDL(t *testing.T) {
	ddl, err := Files.ReadFile("ddl.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range Queries {
		b, err := Files.ReadFile(q + ".sql")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), string(ddl)) {
			t.Errorf("%s.sql does not start with ddl.sql", q)
		}
	}
}
