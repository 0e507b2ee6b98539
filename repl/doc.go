// Package repl is strand's interactive SQL client: a read-eval-print loop
// on github.com/chzyer/readline over a session.Session. Split cuts the
// input into statements; Run reads them from a terminal (prompts, history,
// Ctrl-C) or from a pipe (no prompts, stop status on failure), runs each
// with the session and prints SELECT results as a tableau table.
package repl
