package repl

// helpKeys follows the statements in HELP: what the REPL adds to them.
const helpKeys = `
Keys:
  Enter        run the statements ended by ';', or continue on the next line
  Tab          complete a keyword, table, view, column or function name,
               an option key inside WITH ( or SET '
  Up / Down    recall earlier statements (a statement of several lines is one entry)
  Ctrl-R       search the history backwards (again: the next match)
  Ctrl-C       clear the input, or stop the running SELECT
  Ctrl-D       leave (asks first if jobs are running)

Results (SET 'sql-client.execution.result-mode'): tableau (default), changelog
(with each row's kind), table (the current result, redrawn in place). At most
'sql-client.display.max-rows' rows (default 1000) are kept.
`
