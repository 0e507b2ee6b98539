// Package nexmark holds the Nexmark benchmark's queries as strand runs
// them: ddl.sql declares the three event tables, and q<name>.sql holds one
// query's sink table and INSERT. They run together as
//
//	strand run queries/nexmark/ddl.sql queries/nexmark/q0.sql
//
// and are embedded so that strand bench carries them.
package nexmark

import (
	"embed"
	"strings"
)

// Files holds ddl.sql and q<name>.sql for every query, and Flink's own
// DDL in flink/: ddl_gen.sql (one nexmark table, datagen, of Flink's shape:
// event_type and a ROW per kind) and ddl_views.sql (the views person,
// auction and bid over it), with only their ${...} placeholders filled.
//
//go:embed *.sql flink/*.sql
var Files embed.FS

// Queries are the query names, in the order strand bench runs them.
var Queries = []string{"q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q7w", "q8", "q9", "q10", "q11", "q12", "q12e", "q14", "q15", "q16", "q17", "q18", "q19", "q20", "q21", "q22"}

// Fill replaces the placeholders of Flink's query texts: ${NEXMARK_DIR},
// the directory q10 writes its log under (data/output/<submit time>/bid/),
// by dir, and ${SUBMIT_TIME} by submitted.
func Fill(src, dir, submitted string) string {
	return strings.NewReplacer("${NEXMARK_DIR}", dir, "${SUBMIT_TIME}", submitted).Replace(src)
}

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

// FlinkScript returns the SQL that runs query q over Flink's DDL: its
// ddl_gen.sql and ddl_views.sql, then the query's file.
func FlinkScript(q string) (string, error) {
	var b strings.Builder
	for _, f := range []string{"flink/ddl_gen.sql", "flink/ddl_views.sql", q + ".sql"} {
		src, err := Files.ReadFile(f)
		if err != nil {
			return "", err
		}
		b.Write(src)
		b.WriteString("\n")
	}
	return b.String(), nil
}
