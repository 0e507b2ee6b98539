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
	"os"
	"path/filepath"
	"strconv"
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
var Queries = []string{"q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q7w", "q8", "q9", "q10", "q11", "q12", "q12e", "q13", "q14", "q15", "q16", "q17", "q18", "q19", "q20", "q21", "q22"}

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

// SideInputRows is how many rows q13's side input has, as Flink's nexmark
// generates it (side_input_gen.sh: --num 10000).
const SideInputRows = 10000

// WriteSideInput writes q13's side input under dir, as
// data/side_input.txt: the rows "i,i" for i in [0, SideInputRows), as
// Flink's nexmark SideInputGenerator writes them, so that every bid's
// auction % 10000 finds one row.
func WriteSideInput(dir string) error {
	var b []byte
	for i := range SideInputRows {
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, '\n')
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "data", "side_input.txt"), b, 0o644)
}
