package session

import (
	"context"
	"errors"
	"fmt"
	"github.com/strandsql/strand/planner"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// Session keys for checkpoints and restarts, Flink's names.
const (
	KeyCheckpointInterval = "execution.checkpointing.interval"
	KeyCheckpointMode     = "execution.checkpointing.mode"
	KeyCheckpointRetained = "execution.checkpointing.num-retained"
	KeyCheckpointTimeout  = "execution.checkpointing.timeout"
	KeyCheckpointPause    = "execution.checkpointing.min-pause"
	KeyTolerableFailures  = "execution.checkpointing.tolerable-failed-checkpoints"
	KeyRestartStrategy    = "restart-strategy"
	KeyRestartAttempts    = "restart-strategy.fixed-delay.attempts"
	KeyRestartDelay       = "restart-strategy.fixed-delay.delay"
	KeyStateDir           = "state.checkpoints.dir"
	KeyIgnoreUnclaimed    = "execution.savepoint.ignore-unclaimed-state"
)

// Durability says where a session's jobs keep checkpoints and how they
// start: resuming, from a given checkpoint, or fresh.
type Durability struct {
	// StateDir holds checkpoints/<job>/ and work/<job>/ (default .strand).
	StateDir string
	// FromCheckpoint restores that checkpoint (a chk-<n> directory or its
	// _metadata) or fails.
	FromCheckpoint string
	// Fresh discards the job's old checkpoints.
	Fresh bool
	// Name prefixes job names, normally the query file's base name.
	Name string
	// AllowNonRestored starts a restored job even when some state of the
	// checkpoint cannot be mapped to it, dropping that state
	// (--allow-non-restored-state, or SET
	// 'execution.savepoint.ignore-unclaimed-state' = 'true').
	AllowNonRestored bool
	// FromSavepoint restores the savepoint in that directory or fails
	// (--from-savepoint, or SET 'execution.savepoint.path').
	FromSavepoint string
	// Members is this process's share of jobs that several strand
	// processes run (--members, --member): its jobs' checkpoints and
	// transactional ids carry its index.
	Members exec.Members
}

// fromSavepoint is the savepoint one job restores, taken from the session
// when the job starts, so that jobs started later, while it runs, do not.
type fromSavepoint struct {
	path string
	// run is the first checkpoint id of the run that restored the
	// savepoint: a restart within the job takes a checkpoint from that
	// run on, or else the savepoint again, never an older checkpoint of
	// the job.
	run int64
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_]`)

// jobName names the n-th job of a session for its state directory and
// output files: letters, digits and underscores only, so that names never
// prefix one another past a separator.
func (s *Session) jobName(n int) string {
	name := unsafeName.ReplaceAllString(s.Durable.Name, "_")
	if name == "" {
		name = "job"
	}
	return fmt.Sprintf("%s_%d", name, n)
}

// stateDir is the session's local state directory, absolute: jobs' work
// directories and locks, and their checkpoints unless state.checkpoints.dir
// is a URL (checkpointStorage).
func (s *Session) stateDir() (string, error) {
	dir := s.config(KeyStateDir, s.Durable.StateDir)
	if checkpoint.IsURL(dir) {
		dir = s.Durable.StateDir
	}
	if dir == "" {
		dir = ".strand"
	}
	return filepath.Abs(dir)
}

// scratch gives a job that does not checkpoint its run's directory for
// spilled state, under the job's work directory, after removing what dead
// runs of the job left there.
func (s *Session) scratch(job string) (*exec.Scratch, error) {
	dir, err := s.stateDir()
	if err != nil {
		return nil, err
	}
	work := filepath.Join(dir, "work", job)
	if err := exec.Sweep(work, false); err != nil {
		return nil, err
	}
	return &exec.Scratch{Parent: work}, nil
}

// checkpointing builds a run's checkpoint configuration from the session
// settings; nil when the job does not checkpoint. It locks the job's state
// directory for the life of the job (the caller releases the lock): two
// processes on one job's checkpoints would delete each other's files.
func (s *Session) checkpointing(job string) (*exec.Checkpointing, *checkpoint.Lock, error) {
	iv, ok := s.Config[KeyCheckpointInterval]
	if !ok {
		return nil, nil, nil
	}
	interval, err := types.ParseDuration(iv)
	if err != nil || interval <= 0 {
		return nil, nil, fmt.Errorf("%w: '%s' must be a positive duration such as '2s' or '1 min', got '%s'", planner.ErrOption, KeyCheckpointInterval, iv)
	}
	cp := &exec.Checkpointing{Interval: interval, Job: job, FS: vfs.Default, Log: s.Log, Retained: 2, Timeout: 10 * time.Minute,
		AllowNonRestored: s.Durable.AllowNonRestored}
	switch v := strings.ToLower(s.config(KeyIgnoreUnclaimed, "false")); v {
	case "true":
		cp.AllowNonRestored = true
	case "false":
	default:
		return nil, nil, fmt.Errorf("%w: '%s' must be true or false, got '%s'", planner.ErrOption, KeyIgnoreUnclaimed, v)
	}
	switch m := strings.ToUpper(s.config(KeyCheckpointMode, "EXACTLY_ONCE")); m {
	case "EXACTLY_ONCE":
	case "AT_LEAST_ONCE":
		cp.AtLeastOnce = true
	default:
		return nil, nil, fmt.Errorf("%w: '%s' must be EXACTLY_ONCE or AT_LEAST_ONCE, got '%s'", planner.ErrOption, KeyCheckpointMode, m)
	}
	if cp.Retained, err = s.intConfig(KeyCheckpointRetained, 2, 1); err != nil {
		return nil, nil, err
	}
	if cp.Tolerable, err = s.intConfig(KeyTolerableFailures, 0, 0); err != nil {
		return nil, nil, err
	}
	if v, ok := s.Config[KeyCheckpointPause]; ok {
		if cp.MinPause, err = types.ParseDuration(v); err != nil || cp.MinPause < 0 {
			return nil, nil, fmt.Errorf("%w: '%s' must be a duration, 0 or more, got '%s'", planner.ErrOption, KeyCheckpointPause, v)
		}
	}
	if v, ok := s.Config[KeyCheckpointTimeout]; ok {
		if cp.Timeout, err = types.ParseDuration(v); err != nil || cp.Timeout <= 0 {
			return nil, nil, fmt.Errorf("%w: '%s' must be a positive duration, got '%s'", planner.ErrOption, KeyCheckpointTimeout, v)
		}
	}
	dir, err := s.stateDir()
	if err != nil {
		return nil, nil, err
	}
	// Beside the directories it guards, not in them: --fresh removes the
	// checkpoint directory, and with it would go a lock inside.
	lock, err := checkpoint.Acquire(filepath.Join(dir, "checkpoints", job+".lock"))
	if err != nil {
		return nil, nil, fmt.Errorf("job %s cannot use state directory %s: %w", job, dir, err)
	}
	cp.WorkDir = filepath.Join(dir, "work", job)
	if err := exec.Sweep(cp.WorkDir, true); err != nil {
		lock.Release()
		return nil, nil, err
	}
	if cp.Storage, err = s.checkpointStorage(dir, job); err != nil {
		lock.Release()
		return nil, nil, err
	}
	return cp, lock, nil
}

// checkpointStorage opens job's checkpoint storage: checkpoints/<job> in
// the local state directory dir, or under the URL state.checkpoints.dir
// names (file://, mem://, and with the cloud build s3:// and gs://), where
// a member that restarts on another machine finds them. The lock and the
// work directory stay local either way: the lock keeps two processes of
// one machine apart, and object storage has no locks (run each member
// once).
func (s *Session) checkpointStorage(dir, job string) (*checkpoint.Storage, error) {
	u := s.config(KeyStateDir, s.Durable.StateDir)
	if !checkpoint.IsURL(u) {
		return checkpoint.OpenStorage(vfs.Default, filepath.Join(dir, "checkpoints", job))
	}
	fs, root, err := checkpoint.OpenURL(context.Background(), u)
	if err != nil {
		return nil, fmt.Errorf("%w: '%s': %w", planner.ErrOption, KeyStateDir, err)
	}
	return checkpoint.OpenStorage(fs, fs.PathJoin(root, "checkpoints", job))
}

// ErrNoCheckpoint is returned when a job has checkpoints and none of them
// verifies.
var ErrNoCheckpoint = errors.New("no checkpoint verifies")

// startDurable decides how a checkpointing job starts: resuming from its
// latest checkpoint that verifies (or the one asked for), or afresh; and
// which output of earlier lineages its sinks settle or remove first.
//
// It returns done when the job has nothing to run: its latest checkpoint
// is final, and the run that took it died before it ended (a kill between
// the final checkpoint and the exit). That is a recovery, as Flink's of a
// finished job: the output is complete once the checkpoint's commit is
// finished, and starting afresh would write it all a second time. Only a
// run after one that ended starts a finished job afresh.
func (s *Session) startDurable(cp *exec.Checkpointing, job string, sp *fromSavepoint) (done bool, err error) {
	st := cp.Storage
	prev, err := st.Lineage()
	if err != nil {
		return false, err
	}
	if s.Durable.Fresh {
		// A lineage that finished is not abandoned: its output is a
		// whole run's, and its last commit is finished before the
		// checkpoint that lists it goes.
		last, err := st.Newest()
		if err != nil {
			return false, err
		}
		if last != nil && last.Finished && last.Job == prev {
			cp.Settle = last
		} else {
			cp.Abandon = prev
		}
		if err := st.Discard(); err != nil {
			return false, err
		}
	}
	finished, err := s.restorePoint(cp, sp)
	if err != nil {
		return false, err
	}
	if finished != nil {
		ended, err := st.Ended()
		if err != nil {
			return false, err
		}
		cp.Settle = finished
		if ended != finished.Job {
			fmt.Fprintf(s.Log, "job %s finished at checkpoint %d, and its run died before it ended: committing its output, running nothing again\n", job, finished.ID)
			cp.Job = finished.Job
			return true, nil
		}
		fmt.Fprintf(s.Log, "job %s finished at checkpoint %d; starting it afresh\n", job, finished.ID)
		// The run that took it ended (markEnded): its commit is done.
		cp.Settled = true
	}
	cp.Job = lineage(job, cp.Restore)
	// A fresh start after a lineage that did not finish: that lineage has
	// no checkpoint left that verifies (restorePoint refused the start if
	// it had some that do not), so it either committed nothing or was
	// discarded with --fresh; its output goes.
	if cp.Restore == nil && prev != "" && (cp.Settle == nil || cp.Settle.Job != prev) {
		cp.Abandon = prev
	}
	if cp.Job != prev || cp.SavepointDir != "" {
		// A savepoint's restore discarded the record with the
		// checkpoints it superseded.
		return false, st.SetLineage(cp.Job)
	}
	return false, nil
}

// restorePoint picks the checkpoint a run starts from: the one asked for,
// or the latest that verifies, unless the job finished. A job with
// checkpoints none of which verifies is refused: starting it from scratch
// would write again what they committed.
//
// It returns the finished checkpoint instead when the latest one is a
// job's final checkpoint: a new run of that job starts afresh, a restart
// within the run that took it has nothing left to do.
func (s *Session) restorePoint(cp *exec.Checkpointing, sp *fromSavepoint) (finished *checkpoint.Metadata, err error) {
	st := cp.Storage
	var md *checkpoint.Metadata
	if sp.path != "" {
		return nil, s.restoreSavepoint(cp, sp)
	}
	if p := s.Durable.FromCheckpoint; p != "" {
		if md, err = st.LoadPath(p); err != nil {
			return nil, fmt.Errorf("--from-checkpoint %s: %w", p, err)
		}
	} else {
		var bad []string
		md, err = st.Latest(func(n int64, err error) {
			if errors.Is(err, checkpoint.ErrIncomplete) {
				fmt.Fprintf(s.Log, "incomplete checkpoint %d, skipped\n", n)
				return
			}
			fmt.Fprintf(s.Log, "skipping checkpoint %d: %v\n", n, err)
			bad = append(bad, "  "+err.Error())
		})
		if err != nil {
			return nil, err
		}
		if md == nil && len(bad) > 0 {
			return nil, fmt.Errorf("%w: job %s has checkpoints and none of them verifies; starting it from scratch would write again what they committed:\n%s\n"+
				"run with --fresh to discard them and the output they committed, or --from-checkpoint to name one", ErrNoCheckpoint, cp.Job, strings.Join(bad, "\n"))
		}
		if md != nil && md.Finished {
			finished, md = md, nil
		}
	}
	cp.Restore = md
	if md != nil {
		fmt.Fprintf(s.Log, "resuming from checkpoint %d\n", md.ID)
	}
	cp.FirstID, err = st.NextID()
	if md != nil && cp.FirstID <= md.ID {
		cp.FirstID = md.ID + 1
	}
	return finished, err
}

// savepointPath is the savepoint the session's jobs start from, if any.
func (s *Session) savepointPath() string {
	return s.config(KeySavepointPath, s.Durable.FromSavepoint)
}

// restoreSavepoint makes the savepoint sp the run's restore point, or,
// on a restart of a run that restored it, the newest checkpoint that run
// has taken since.
func (s *Session) restoreSavepoint(cp *exec.Checkpointing, sp *fromSavepoint) error {
	p := sp.path
	st := cp.Storage
	next, err := st.NextID()
	if err != nil {
		return err
	}
	if sp.run > 0 {
		latest, err := st.Latest(func(n int64, err error) {
			fmt.Fprintf(s.Log, "skipping checkpoint %d: %v\n", n, err)
		})
		if err != nil {
			return err
		}
		if latest != nil && latest.ID >= sp.run {
			cp.Restore, cp.SavepointDir, cp.FirstID = latest, "", max(next, latest.ID+1)
			fmt.Fprintf(s.Log, "resuming from checkpoint %d\n", latest.ID)
			return nil
		}
	}
	md, err := checkpoint.LoadSavepoint(p)
	if err != nil {
		return err
	}
	if sp.run == 0 {
		// The job's checkpoints are superseded: a restore from one of
		// them later (a run of the job without the savepoint) would take
		// back state whose output the savepoint's restore removes.
		if err := st.Discard(); err != nil {
			return err
		}
	}
	cp.Restore, cp.SavepointDir, cp.FirstID = md, p, max(next, md.ID+1)
	if sp.run == 0 {
		sp.run = cp.FirstID
	}
	fmt.Fprintf(s.Log, "resuming from savepoint %s (taken at checkpoint %d)\n", p, md.ID)
	return nil
}

// lineage names a job's runs that continue one another through
// checkpoints: output files carry it, so that a restore removes only what
// its own lineage committed after the restored checkpoint, never the
// output of an earlier, finished or discarded, lineage of the same job.
func lineage(job string, restore *checkpoint.Metadata) string {
	if restore != nil && strings.HasPrefix(restore.Job, job+"_") {
		return restore.Job
	}
	return job + "_" + newJobID()[:8]
}

// runDurable runs a checkpointing job, first as graph, then, after a
// failure, as recompile builds it, restarting from the latest checkpoint as
// the fixed-delay restart strategy says.
//
// It runs without s.mu, which it takes to read the session's options and
// to pick a restart's restore point.
func (s *Session) runDurable(ctx context.Context, job *Job, graph *exec.Graph, recompile func() (*exec.Graph, error), cp *exec.Checkpointing, sp *fromSavepoint, opts exec.Options) error {
	var attempts int
	var delay time.Duration
	var err error
	s.locked(func() { attempts, delay, err = s.restarts() })
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			var finished *checkpoint.Metadata
			s.locked(func() {
				s.Durable.FromCheckpoint = ""
				finished, err = s.restorePoint(cp, sp)
			})
			if err != nil {
				return err
			}
			if finished != nil && finished.Job == cp.Job {
				// The failure came after the final checkpoint: the
				// job is done once its commit, which the failure
				// may have cut short, is finished.
				fmt.Fprintf(s.Log, "job %s finished at checkpoint %d\n", cp.Job, finished.ID)
				cp.Settle = finished
				return settle(graph, cp)
			}
			// A final checkpoint of an earlier lineage: this run, a
			// fresh start after it (startDurable settled it), failed
			// before its first checkpoint and starts afresh again.
			if graph, err = recompile(); err != nil {
				return err
			}
		}
		opts.Checkpoint = cp
		err = s.attempt(ctx, job, graph, opts)
		cp.Settle, cp.Settled, cp.Abandon = nil, false, "" // done by the first run
		if err == nil {
			return markEnded(cp)
		}
		// Another process's lock does not go away by trying again soon,
		// nor does a permanent failure (state the restore refuses).
		if errors.Is(err, exec.ErrCanceled) || errors.Is(err, checkpoint.ErrLocked) || errors.Is(err, exec.ErrPermanent) ||
			ctx.Err() != nil || attempt >= attempts {
			return err
		}
		fmt.Fprintf(s.Log, "job %s failed: %v; restarting in %s (restart %d of %d)\n", cp.Job, err, delay, attempt+1, attempts)
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return err
		}
	}
}

// settle ends a job whose run died after its final checkpoint (see
// startDurable): it finishes that checkpoint's commit and records the end.
func settle(g *exec.Graph, cp *exec.Checkpointing) error {
	if err := exec.Settle(g, cp); err != nil {
		return err
	}
	return markEnded(cp)
}

// markEnded records that the job's run has ended after its final checkpoint,
// if it took one (a stop with a savepoint does not): the next run of the
// job starts it afresh (see checkpoint.Storage.SetEnded).
func markEnded(cp *exec.Checkpointing) error {
	md, err := cp.Storage.Newest()
	if err != nil {
		return err
	}
	if md == nil || !md.Finished || md.Job != cp.Job {
		return nil
	}
	return cp.Storage.SetEnded(cp.Job)
}

// restarts reads the restart strategy: how many restarts, how far apart.
func (s *Session) restarts() (int, time.Duration, error) {
	attempts, err := s.intConfig(KeyRestartAttempts, 3, 0)
	if err != nil {
		return 0, 0, err
	}
	if strings.EqualFold(s.config(KeyRestartStrategy, "fixed-delay"), "none") {
		attempts = 0
	}
	delay, err := types.ParseDuration(s.config(KeyRestartDelay, "1s"))
	if err != nil {
		return 0, 0, fmt.Errorf("%w: '%s': %v", planner.ErrOption, KeyRestartDelay, err)
	}
	return attempts, delay, nil
}

func (s *Session) config(key, def string) string {
	if v, ok := s.Config[key]; ok {
		return v
	}
	return def
}

func (s *Session) intConfig(key string, def, lo int) (int, error) {
	v, ok := s.Config[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo {
		return 0, fmt.Errorf("%w: '%s' must be an integer of at least %d, got '%s'", planner.ErrOption, key, lo, v)
	}
	return n, nil
}
