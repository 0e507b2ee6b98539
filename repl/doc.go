// Package repl is strand's interactive SQL client: a read-eval-print loop
// on github.com/chzyer/readline over a session.Session.
//
// Split cuts the input into statements at a ';' outside quotes and
// comments. Interactive reads them on a terminal (prompts, continuation
// lines, history with multi-line statements as one entry and Ctrl-R search,
// Tab completion (complete.go), Ctrl-C to clear the input or stop the
// running statement, Ctrl-D/QUIT/EXIT to leave, asking first while jobs
// run) and runs INSERTs as background jobs (session.Session.Detach); Init
// runs an init file the same way before the prompt. Script reads
// statements from a file or pipe, without prompts or colours, and stops at
// the first error, as `strand run` does; when it ends, or on Ctrl-C or
// SIGTERM, the jobs still running are stopped with a savepoint into
// 'state.savepoints.dir' if that is set, else canceled, and it says which:
// no one is there to ask. Every statement is run with blanks standing for
// the input before it, so that errors carry the line and column of the
// input.
//
// SELECT results (result.go) are shown in the mode SET
// 'sql-client.execution.result-mode' names, Flink's SQL client's: tableau
// (the default: an aligned table printed as rows arrive, widths from the
// types), changelog (the same with an "op" column of each row's kind, +I
// today, -U/+U/-D once queries produce changelogs) and table (the current
// result, at most 'sql-client.display.max-rows' rows, the oldest dropped
// first, redrawn in place on a terminal and printed once at the end
// elsewhere). Tableau and changelog keep no rows, so memory stays flat
// however long a query runs. On a terminal a status line under the rows
// (rows read, rows emitted, the watermark at the output, time elapsed) is
// redrawn in place every 250 ms and erased when the query ends; errors are
// red and [INFO] green unless NO_COLOR is set.
//
// While a statement runs, its output goes straight to the terminal; at the
// prompt, output of background jobs goes through readline, which redraws
// the prompt and the line being typed below it (readline's own writers
// redraw the prompt whenever its reader waits, which it does while a
// statement runs too).
package repl
