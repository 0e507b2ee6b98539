// Package session is a user's control over the jobs of a session: the
// HTTP API that `strand run --http` serves (session.Server), the per-user
// registry through which `strand jobs`, `strand savepoint` and `strand
// stop` find a running job's API (Registry), and the client those commands
// use (Client). Statement execution itself still lives in planner.Session;
// DESIGN.md has it move here.
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
// Per-vertex metrics (Flink's /jobs/<id>/vertices/...) do not exist yet;
// the job-level counters of exec.Metrics are all there is.
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
