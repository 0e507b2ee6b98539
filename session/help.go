package session

// Help is HELP's text: the statements a session runs.
const Help = `Statements (end each with ';'; one may span lines):
  CREATE TABLE t (...) WITH (...)     declare a table over a connector
  CREATE VIEW v AS SELECT ...         name a query
  DROP TABLE [IF EXISTS] t            DROP VIEW [IF EXISTS] v
  SELECT ...                          run a query and show its rows live
  INSERT INTO t SELECT ...            run a query as a job writing into t
  EXPLAIN [PLAN FOR] statement        show the plans of a statement
  SHOW TABLES | VIEWS | FUNCTIONS     list the tables, views or functions
  SHOW CREATE TABLE t | VIEW v        show the statement that declared t or v
  DESCRIBE t                          list the columns of a table or view
  SET 'key' = 'value'                 set a session option
  SET                                 list every option, its value and default
  RESET ['key']                       unset an option, or all of them
  SHOW JOBS                           list the session's jobs
  STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN]
                                      stop a job (with a savepoint to resume it)
  SOURCE 'file.sql'                   run the statements of a file
  HELP                                this text
  QUIT | EXIT                         leave
`
