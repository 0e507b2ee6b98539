// Package session runs a user's statements and jobs: a Session executes
// DDL, SET/RESET/SHOW/DESCRIBE, EXPLAIN, SHOW JOBS and STOP JOB, and plans
// (with package planner) and runs (with exec) each INSERT and SELECT as a
// job, resuming it from a checkpoint or a savepoint; Jobs tracks its jobs
// for SHOW JOBS, STOP JOB and the HTTP API. The planner plans; the session
// runs. It imports parser as well as the packages DESIGN.md's table gives
// it, because the statements it executes are parser's.
//
// The package also holds the HTTP API that `strand run --http` serves
// (Server), the per-user registry through which `strand jobs`, `strand
// savepoint` and `strand stop` find a running job's API (Registry), and the
// client those commands use (Client).
//
// # Concurrent use and detached jobs
//
// The REPL executes statements from its prompt while jobs it submitted
// run, and the HTTP API reads the jobs meanwhile. A Session's mutex
// guards its mutable state (Config, Catalog, Durable, LastMetrics, the job
// counter): a statement that runs no job holds it while it executes, an
// INSERT or SELECT only while its job is planned, compiled and set up, and
// a running job only to read its restart options and pick a restart's
// restore point; SHOW JOBS and STOP JOB go to Jobs, which locks itself.
// A statement set (EXECUTE STATEMENT SET) is one job, as an INSERT is.
// With Detach set, Exec returns from an INSERT as soon as its job is set
// up, printing "[INFO] Job <id> submitted.", and the job runs on its own
// goroutine (a failure goes to Log); Wait waits for those jobs. Without
// it, as in `strand run`, every job runs to its end before Exec returns.
// Results lets the REPL take a SELECT's rows instead of the print sink,
// with the result mode and row cap SET gave. A panic while a job is set up
// or run on the session's goroutine fails that job with ErrInternal (the
// job's task goroutines recover theirs in exec), so the REPL goes on.
//
// The SQL client's statements: HELP (Help, then HelpKeys, which the REPL
// sets to its keys), SOURCE 'file' (the file's statements, as if typed;
// an error points into the file; at most 16 files within each other), SHOW
// FUNCTIONS, SHOW CREATE TABLE|VIEW (the declaration a column or option a
// line, as Flink's client prints it), and SET without arguments, which
// lists every key strand reads, and each Flink key that was set, with its
// value and its default (settings.go).
// A savepoint set with execution.savepoint.path (or --from-savepoint) is
// taken by the next job when it starts, which keeps it for its restarts:
// a job started while that one runs does not restore it too.
//
// # Session options
//
// SET and the command line's --set (Session.SetOption) take strand's own
// keys, whose values are checked, and Flink's keys (config.go), which
// are accepted with a warning on Log that strand ignores them, so that
// Flink scripts run. Any other key is refused, suggesting the known keys
// nearest to it by edit distance: a misspelt key that was kept would change
// nothing, silently.
//
// # How a job starts (durable.go)
//
// A checkpointing job first locks <state-dir>/checkpoints/<job>.lock for
// its whole life (checkpoint.Lock): a second process on the same job's
// checkpoints is refused at once, naming the holder's pid, instead of the
// two deleting each other's files. It then empties its work directory
// (keeping the run directories of live runs without checkpoints, see
// exec.Sweep) and picks its start. It resumes from the newest checkpoint
// that verifies; if there are checkpoints and none verifies, it refuses,
// listing each and why: starting from scratch would silently write again
// what they committed, and --fresh is the explicit way to do that. A
// fresh start (--fresh, no checkpoint yet, or after a run that finished)
// begins a new lineage, recorded in the checkpoint directory before any
// output, and removes the previous lineage's output if that lineage did
// not finish (an abandoned lineage's committed files are a partial run),
// or finishes its last commit if it did. A job without checkpoints keeps
// its spill stores in a run directory under <state-dir>/work/<job>/, made
// on the first spill and removed at the end; what a killed run left there
// is removed at the job's next start.
//
// # HTTP API
//
// The API follows the shape of Flink's REST API for the same operations,
// with strand's own additions to the job objects (name, rows, last
// checkpoint):
//
//	GET  /jobs                                  {"jobs":[{"id","status","name","start-time",...}]}
//	GET  /jobs/<id>                             a job's status, statement and metrics
//	POST /jobs/<id>/savepoints                  {"target-directory":DIR,"cancel-job":BOOL} -> {"request-id":ID}
//	POST /jobs/<id>/stop                        {"targetDirectory":DIR,"drain":BOOL} -> {"request-id":ID}
//	GET  /jobs/<id>/savepoints/<request-id>     {"status":{"id":"IN_PROGRESS"|"COMPLETED"},
//	                                             "operation":{"location":PATH} or {"failure-cause":{"message":...}}}
//	GET  /metrics                               the job counters in Prometheus text format
//
// <id> may be a unique prefix of at least four characters of a job id.
// Savepoints and stops run asynchronously: the POST answers at once, and
// the request id's status says when the savepoint is written (for a stop:
// when the job has ended). A directory that is not absolute is relative to
// the working directory of `strand run`; the CLI sends absolute paths. An
// empty directory means the job's default, <state-dir>/savepoints.
//
// Errors are {"errors":["message"]} with a 4xx or 5xx status, never a
// stack trace.
//
// The API has no authentication and no TLS: whoever can connect can stop
// any job and write savepoints wherever strand may write. Listen therefore
// refuses an address that is not a loopback address unless the caller
// allows remote access explicitly (--http-allow-remote).
//
// GET /jobs/<id> also lists the job's vertices (exec.VertexMetrics): rows
// into and out of each, its watermark, and how full its channels are.
//
// # Dashboard (dashboard.go)
//
// The server also serves a web dashboard: GET / and GET /ui/... are pages
// embedded in the binary (session/dashboard: HTML, JavaScript, CSS, no
// build step), which poll the JSON endpoints every second and compute
// rates and charts themselves, so that nothing is sampled while no page is
// open. Its endpoints beyond the API's, in the shape of Flink's:
//
//	GET /jobs/<id>/plan              the vertices with their chains, uids and input edges; statement; EXPLAIN
//	GET /jobs/<id>/vertices/<vid>    a vertex with each subtask's counters (exec.SubtaskMetrics)
//	GET /jobs/<id>/checkpoints       counts, latest, and the current run's history (exec.CheckpointRecord)
//
// SQL text (here and in GET /jobs/<id>) has the values of options whose
// keys are secret, by Flink's list of sensitive words, masked. A POST
// must declare a JSON body: a page of another site can make the browser
// POST a form or text/plain to a loopback address without a CORS
// preflight, but not application/json, which the server never allows.
//
// # Registry
//
// While `strand run --http` runs a job it keeps <dir>/<job-id>.json (id,
// name, pid, HTTP address, start time) in the user's registry directory:
// $STRAND_HOME/jobs, else $XDG_RUNTIME_DIR/strand/jobs, else
// ~/.strand/jobs. The file is removed when the job ends; one left behind by
// a killed process is skipped, and removed, by the first reader that finds
// its pid dead.
package session
