// Package tests holds strand's end-to-end tests: SQL test files run
// through the real parser, planner and runtime, and harnesses that build
// and run the strand binary.
//
// # SQL test files
//
// testdata/*.test are datadriven files (github.com/cockroachdb/datadriven):
// a command line, its input, a "----" line, and the expected output. Every
// file runs twice, at parallelism 1 with 4096-row batches and at
// parallelism 4 with 3-row batches, each in a fresh session and a fresh
// temporary working directory, and both runs must produce the expected
// output: results may not depend on parallelism or batch size. Commands:
//
//	input path=data/clicks.csv
//	<lines written to that file, relative to the working directory>
//	----
//
//	exec
//	<statements: DDL, SET, INSERT, SHOW, DESCRIBE, EXPLAIN, ...>
//	----
//	<what they printed, or "ok" if nothing>
//
//	query [ordered | final]
//	<statements whose printed rows are compared, sorted unless ordered>
//	----
//	<rows, e.g. +I[2024-01-01 00:00:00.000, 1, 3]>
//
// With final the printed changelog is applied (+I and +U add a row, -U and
// -D take one back) and the rows of the result are compared, sorted, each
// as +I: the changes of an updating query may come in another order at
// another parallelism or timing, their result may not. A retraction of a
// row not in the result shows as "unmatched -D[...]".
//
// With upsert=N the printed changelog is applied by the key of each row's
// first N fields (+I and +U replace the key's row, -U and -D delete it),
// as an upsert sink's reader applies it, and the result is compared as
// with final.
//
//	error
//	<statements that must fail>
//	----
//	<the error as a user sees it: line:col: message, the line and a caret;
//	 the temporary working directory shows as $WD>
//
//	output path=out/per_user [dirs]
//	----
//	<the lines of every visible file of that directory and its
//	 subdirectories, sorted; with dirs each line starts with its file's
//	 directory relative to path ("dt=2024-01-01/ 1,a"); it is an error if
//	 hidden in-progress files remain>
//
//	metrics
//	----
//	<counters of the last job: rows read, written, late, bad>
//
// A failing job's error is also reported by exec and query, as "error: "
// followed by the message, so a file can assert on bad-row errors.
//
// # Harnesses
//
// The tests that only run the binary, each in its own temporary
// directories (the crash, durability, job control and example tests),
// call t.Parallel: they mostly wait on throttled generators and kills.
// Those that change the working directory (t.Chdir: the SQL files and the
// in-process sessions) or measure time or rates (the REPL, the status
// line, interrupts) run one at a time, before them. referenceRun, the
// uninterrupted run a crash test compares with, runs each query once.
package tests
