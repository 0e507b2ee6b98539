// Package nexmark holds the Nexmark benchmark's queries as strand runs
// them: ddl.sql declares the three event tables, and q<name>.sql holds one
// query's sink table and INSERT. They run together as
//
//	strand run queries/nexmark/ddl.sql queries/nexmark/q0.sql
//
// and are embedded so that strand bench carries them.
package nexmark

import "embed"

// Files holds ddl.sql and q<name>.sql for every query.
//
//go:embed *.sql
var Files embed.FS

// Queries are the query names, in the order strand bench runs them.
var Queries = []string{"q0", "q1", "q2", "q12", "q12e", "q7w", "q15", "q16", "q17"}

// Script returns the SQL that runs query q: the shared DDL, then the
// query's file.
func Script(q string) (string, error) {
	ddl, err := Files.ReadFile("ddl.sql")
	if err != nil {
		return "", err
	}
	query, err := Files.ReadFile(q + ".sql")
	if err != nil {
		return "", err
	}
	return string(ddl) + "\n" + string(query), nil
}
