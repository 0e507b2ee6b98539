// Package repl is strand's interactive SQL client: a read-eval-print loop
// on github.com/chzyer/readline over a session.Session.
//
// Split cuts the input into statements at a ';' outside quotes and
// comments. Interactive reads them on a terminal (prompts, continuation
// lines, history with multi-line statements as one entry, Ctrl-C to clear
// the input or stop the running statement, Ctrl-D/QUIT/EXIT to leave) and
// runs INSERTs as background jobs (session.Session.Detach); Script reads
// them from a file or pipe, without prompts, and stops at the first error,
// as `strand run` does. Every statement is run with blanks standing for
// the input before it, so that errors carry the line and column of the
// input. SELECT results are printed as a tableau table (tableau.go).
//
// While a statement runs, its output goes straight to the terminal; at the
// prompt, output of background jobs goes through readline, which redraws
// the prompt and the line being typed below it (readline's own writers
// redraw the prompt whenever its reader waits, which it does while a
// statement runs too).
package repl
