// Package nexmark holds the Nexmark benchmark's queries as strand runs
// them, one file per query (the shared DDL of ddl.sql, then the query's
// sink table and INSERT), embedded so that strand bench carries them. Each
// file also runs on its own with strand run.
package nexmark

import "embed"

// Files holds ddl.sql and q<name>.sql for every query.
//
//go:embed *.sql
var Files embed.FS

// Queries are the query names, in the order strand bench runs them.
var Queries = []string{"q0", "q1", "q2", "q12", "q12e", "q7w"}
