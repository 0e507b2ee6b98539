package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/memseg"
)

// Options are the settings of one run of a job.
type Options struct {
	// BatchSize is the maximum rows per batch (default 4096).
	BatchSize int
	// ChannelCapacity is the number of elements a channel buffers before
	// its sender blocks (default 16).
	ChannelCapacity int
	// Alloc allocates Arrow buffers; the default reuses the buffers of
	// released batches (see poolAlloc).
	Alloc memory.Allocator
	// Now is the clock (epoch ms); default the wall clock.
	Now     func() int64
	Metrics *Metrics
	// Checkpoint turns checkpoints on; nil runs without them.
	Checkpoint *Checkpointing
	// Memory is the managed memory operators keep their state in
	// (default: memory.managed.size's default, 256 MiB).
	Memory *memseg.Manager
	// Scratch holds the spill stores of a job without checkpoints
	// (default: os.TempDir()); removed at the end of Run.
	Scratch *Scratch
}

func (o *Options) defaults() {
	if o.BatchSize <= 0 {
		o.BatchSize = 4096
	}
	if o.ChannelCapacity <= 0 {
		o.ChannelCapacity = 16
	}
	if o.Alloc == nil {
		o.Alloc = newPoolAlloc()
	}
	if o.Now == nil {
		o.Now = func() int64 { return time.Now().UnixMilli() }
	}
	if o.Metrics == nil {
		o.Metrics = &Metrics{}
	}
	if o.Memory == nil {
		o.Memory, _ = memseg.NewManager(memseg.DefaultBudget, memseg.DefaultSegmentSize)
	}
	if c := o.Checkpoint; c != nil {
		if c.Retained <= 0 {
			c.Retained = 2
		}
		if c.Timeout <= 0 {
			c.Timeout = 10 * time.Minute
		}
	}
}

// Run executes g until every source has ended and every sink has
// committed, or until ctx is canceled or a task fails: Start, then Wait.
func Run(ctx context.Context, g *Graph, opts Options) error {
	j, err := Start(ctx, g, opts)
	if err != nil {
		return err
	}
	return j.Wait()
}

// Start checks g, matches the state it restores (refusing state it cannot
// map), and starts its tasks. An error returned by Start means nothing has
// run; the job's own outcome is Wait's.
func Start(ctx context.Context, g *Graph, opts Options) (*Job, error) {
	opts.defaults()
	if err := validate(g); err != nil {
		return nil, err
	}
	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	started := false
	defer func() {
		if !started {
			cancel(nil)
		}
	}()

	maxPar := g.MaxParallelism
	if maxPar <= 0 {
		maxPar = DefaultMaxParallelism
	}

	// chans[v][u][d]: the channel from subtask u of v's input to subtask d of v.
	inputs := make(map[*Vertex][][][]chan Element)
	for _, v := range g.Vertices {
		for _, e := range v.Inputs {
			m := make([][]chan Element, e.From.Parallelism)
			for u := range m {
				m[u] = make([]chan Element, v.Parallelism)
				for d := range m[u] {
					m[u][d] = make(chan Element, opts.ChannelCapacity)
				}
			}
			inputs[v] = append(inputs[v], m)
		}
	}
	// outsOf[v] are the edges v's output goes out on: one, or several
	// for a source shared by the INSERTs of a statement set.
	outsOf := make(map[*Vertex][]outEdge)
	for _, v := range g.Vertices {
		for i, e := range v.Inputs {
			outsOf[e.From] = append(outsOf[e.From], outEdge{edge: e, to: v, chans: inputs[v][i]})
		}
	}

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		writers  []runWriter
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
			cancel(err)
		}
	}

	share, seg, caches, err := memoryShare(g, opts.Memory)
	if err != nil {
		return nil, err
	}
	var holds []func()
	release := func() {
		for _, r := range holds {
			r()
		}
	}
	defer func() {
		if !started {
			release()
		}
	}()
	for _, v := range g.Vertices {
		if h, ok := v.Sink.(Holder); ok {
			r, err := h.Hold()
			if err != nil {
				return nil, fmt.Errorf("sink %s: %w", v.SinkName, err)
			}
			holds = append(holds, r)
		}
	}
	var coord *coordinator
	var match *Match
	if cp := opts.Checkpoint; cp != nil {
		if match, err = matchRestore(g, cp); err != nil {
			return nil, err
		}
		if err := recoverSinks(g, cp); err != nil {
			return nil, err
		}
		coord = newCoordinator(ctx, cp, g, maxPar, fail)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					fail(internalError("checkpoint coordinator", r))
				}
			}()
			coord.run()
		}()
	}
	sourceSubtask := 0
	aligned := alignments(g)

	vertices := make([]*VertexMetrics, len(g.Vertices))
	for i, v := range g.Vertices {
		vertices[i] = newVertexMetrics(v)
		var pace *pacer
		if v.Source != nil {
			pace = newPacer(v.Parallelism)
		}
		for sub := 0; sub < v.Parallelism; sub++ {
			sm := &vertices[i].Subtasks[sub]
			tc := &TaskContext{
				Vertex: v.Name, Subtask: sub, Parallelism: v.Parallelism,
				Alloc: opts.Alloc, Metrics: opts.Metrics, Now: opts.Now, BatchSize: opts.BatchSize,
				MaxParallelism: maxPar, Checkpoint: opts.Checkpoint, Scratch: opts.Scratch, match: match, vertex: vertices[i],
				pace: pace,
			}
			if a := aligned[v]; a != nil {
				tc.align = a[sub]
			}
			if n := memoryOps(v, caches); n > 0 {
				// Cannot fail: memoryShare made the share whole segments.
				tc.Memory, _ = memseg.NewManager(int64(n)*share, seg)
				tc.MemoryShare = share
				sm.memory = tc.Memory
			}
			var out output
			if v.Sink != nil {
				w, err := v.Sink.Open(v.Ops[len(v.Ops)-1].Out, sub, v.Parallelism)
				if err != nil {
					fail(fmt.Errorf("%s: %w", v.Name, err))
					break
				}
				writers = append(writers, runWriter{w, v.SinkName})
				out = &sinkOutput{w: w, uid: v.SinkUID, metrics: opts.Metrics}
			} else {
				var fan fanOutput
				for _, oe := range outsOf[v] {
					outs := make([]chan<- Element, oe.to.Parallelism)
					for d := range outs {
						outs[d] = oe.chans[sub][d]
					}
					sm.outs = append(sm.outs, outs...)
					fan = append(fan, &chanOutput{ctx: ctx, kind: oe.edge.Kind, outs: outs, self: sub, keys: oe.edge.Keys, maxPar: maxPar, alloc: opts.Alloc, next: sub})
				}
				out = fan
				if len(fan) == 1 {
					out = fan[0]
				}
			}
			var ins []<-chan Element
			var sides []Side
			for i, m := range inputs[v] {
				for u := range m {
					if v.Inputs[i].Kind == Forward && u != sub {
						continue // a forward edge's subtask u sends only to subtask u
					}
					ins = append(ins, m[u][sub])
					if len(v.Ops) > 0 && v.Ops[0].TwoInput {
						sides = append(sides, Side(i))
					}
				}
			}
			sm.ins = ins
			var trigger <-chan checkpoint.Barrier
			if coord != nil && v.Source != nil {
				trigger = coord.triggers[sourceSubtask]
				sourceSubtask++
			}
			var drops []func(int64) int64
			for _, oe := range outsOf[v] {
				if oe.edge.Fires != nil {
					drops = make([]func(int64) int64, len(outsOf[v]))
					for i, oe := range outsOf[v] {
						drops[i] = oe.edge.Fires
					}
					break
				}
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Labels name the task in CPU profiles (--cpuprofile), so
				// that a profile shows which task spent the time.
				pprof.Do(ctx, pprof.Labels("task", v.Name, "subtask", strconv.Itoa(tc.Subtask)), func(ctx context.Context) {
					if err := runTask(ctx, v, tc, opts, ins, sides, out, drops, coord, trigger); err != nil {
						fail(laterFormat(err))
					}
				})
			}()
		}
	}
	j := newJob(g, opts, coord, cancel)
	j.vertices = vertices
	started = true
	go func() {
		wg.Wait()
		if err := opts.Scratch.Remove(); err != nil {
			fail(err)
		}
		mu.Lock()
		err := firstErr
		mu.Unlock()
		err = finishSafely(parent, g, err, coord, opts, writers)
		// The sinks' directories are free before Wait returns: a run
		// started after it must not find them locked.
		release()
		cancel(nil)
		j.settle(err)
	}()
	return j, nil
}

// runWriter is a sink writer of the run and the name of its sink.
type runWriter struct {
	SinkWriter
	sink string
}

// finishRun ends a run whose tasks have all returned: it counts the
// checkpoints and makes the output visible if the whole job succeeded, or
// discards what is not committed. After a stop-with-savepoint the output
// is the savepoint's, committed; anything written after it is discarded.
//
// A writer whose Close fails fails the run, with an error naming its
// sink: it and every writer not yet closed are aborted, so that the
// failed run commits nothing more and leaves no hidden file. Writers
// closed before it keep their output: a SinkWriter cannot take back a
// Close, which for the filesystem sink fails only in its renames, its
// files already synced (EndAware).
func finishRun(parent context.Context, g *Graph, err error, coord *coordinator, opts Options, writers []runWriter) error {
	stopped := false
	if coord != nil {
		coord.uploads.Wait()
		st := coord.stats()
		opts.Metrics.Checkpoints.Store(st.Completed)
		opts.Metrics.Failed.Store(st.Failed)
		opts.Metrics.LastCheckpoint.Store(&st)
		stopped = coord.stopped.Load()
	}
	if parent.Err() != nil {
		// Stopped from outside (a signal): tasks report the cancellation
		// itself, which is not what went wrong.
		err = fmt.Errorf("%w: %w", ErrCanceled, context.Cause(parent))
	}
	var errs []error
	for _, w := range writers {
		if err != nil || stopped {
			errs = append(errs, w.Abort())
		} else if cerr := w.Close(); cerr != nil {
			err = fmt.Errorf("sink %s: %w", w.sink, cerr)
			errs = append(errs, w.Abort())
		}
	}
	if err != nil {
		if cp := opts.Checkpoint; cp != nil {
			errs = append(errs, tidySinks(g, cp))
		}
		return errors.Join(append([]error{err}, errs...)...)
	}
	return errors.Join(errs...)
}

// internalError is the error of a panic r in what: a bug in strand, which
// fails the job instead of the process (with the stack when STRAND_DEBUG
// is set).
func internalError(what string, r any) error {
	err := fmt.Errorf("%s: internal error: %v", what, r)
	if os.Getenv("STRAND_DEBUG") != "" {
		err = fmt.Errorf("%w\n%s", err, debug.Stack())
	}
	return err
}

// finishSafely is finishRun, a panic in a sink's close or commit
// failing the run.
func finishSafely(parent context.Context, g *Graph, err error, coord *coordinator, opts Options, writers []runWriter) (out error) {
	defer func() {
		if r := recover(); r != nil {
			out = errors.Join(err, internalError("finishing the job", r))
		}
	}()
	return finishRun(parent, g, err, coord, opts, writers)
}

// runTask runs one subtask and closes its operators and output whatever
// happens.
func runTask(ctx context.Context, v *Vertex, tc *TaskContext, opts Options, ins []<-chan Element, sides []Side, out output,
	drops []func(int64) int64, coord *coordinator, trigger <-chan checkpoint.Barrier) (err error) {
	// Errors name the vertex, not the subtask, so that they read the same
	// at any parallelism.
	name := v.Name
	defer func() {
		// An operator bug must fail the job with a message, not crash the
		// process with a stack trace in front of the user.
		if r := recover(); r != nil {
			err = internalError(name, r)
		}
	}()
	c, err := newChain(tc, v.Ops, out)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer func() {
		if cerr := c.close(); cerr != nil && err == nil {
			err = fmt.Errorf("%s: %w", name, cerr)
		}
	}()
	if v.Source != nil {
		splits, serr := v.Source.Source.Splits()
		if serr != nil {
			return fmt.Errorf("%s: %w", name, serr)
		}
		splits = v.Source.owned(splits)
		var mine []Split
		for i := tc.Subtask; i < len(splits); i += v.Parallelism {
			mine = append(mine, splits[i])
		}
		t := &sourceTask{ctx: ctx, spec: v.Source, tc: tc, split: mine, all: splits, chain: c, out: out, drops: drops,
			opts:  ReadOptions{BatchSize: opts.BatchSize, Alloc: opts.Alloc, Metrics: opts.Metrics, Subtask: tc.Subtask},
			coord: coord, trigger: trigger, restored: restoredSplits(opts.Checkpoint, tc.match, v.Source.UID)}
		return t.run()
	}
	t := &inputTask{ctx: ctx, name: name, subtask: tc.Subtask, ins: ins, sides: sides, chain: c, out: out, coord: coord}
	return t.run()
}

// validate checks the graph's shape before anything starts.
func validate(g *Graph) error {
	if len(g.Vertices) == 0 {
		return errors.New("exec: empty job graph")
	}
	for _, v := range g.Vertices {
		if v.Parallelism <= 0 {
			return fmt.Errorf("exec: vertex %s has parallelism %d", v.Name, v.Parallelism)
		}
		if (v.Source == nil) == (len(v.Inputs) == 0) {
			return fmt.Errorf("exec: vertex %s must have either a source or inputs", v.Name)
		}
		if v.Sink != nil && len(v.Ops) == 0 {
			return fmt.Errorf("exec: sink vertex %s needs an operator that declares its output schema", v.Name)
		}
		if v.Sink == nil && !consumed(g, v) {
			return fmt.Errorf("exec: vertex %s has neither a sink nor a consumer", v.Name)
		}
		// A vertex with several inputs and a one-input chain reads their
		// union; a two-input operator reads exactly two.
		if len(v.Ops) > 0 && v.Ops[0].TwoInput && len(v.Inputs) != 2 {
			return fmt.Errorf("exec: vertex %s has %d inputs; its two-input operator %s needs two", v.Name, len(v.Inputs), v.Ops[0].Name)
		}
		for i := 1; i < len(v.Ops); i++ {
			if v.Ops[i].TwoInput {
				return fmt.Errorf("exec: two-input operator %s is not first in the chain of vertex %s", v.Ops[i].Name, v.Name)
			}
		}
		for _, e := range v.Inputs {
			if e.Fires != nil && (e.From.Source == nil || len(e.From.Ops) > 0 || e.From.Source.Fires != nil) {
				return fmt.Errorf("exec: edge %s -> %s drops late rows, but comes from no source vertex without operators and late rows of its own", e.From.Name, v.Name)
			}
			if e.Kind == Forward && e.From.Parallelism != v.Parallelism {
				return fmt.Errorf("exec: forward edge %s -> %s joins parallelism %d to %d", e.From.Name, v.Name, e.From.Parallelism, v.Parallelism)
			}
			if e.Kind == Global && v.Parallelism != 1 {
				return fmt.Errorf("exec: global edge %s -> %s needs parallelism 1, not %d", e.From.Name, v.Name, v.Parallelism)
			}
		}
	}
	return nil
}

func consumed(g *Graph, v *Vertex) bool {
	for _, w := range g.Vertices {
		for _, e := range w.Inputs {
			if e.From == v {
				return true
			}
		}
	}
	return false
}

// restoredSplits returns the read positions a restored checkpoint holds
// for source uid, by split id.
func restoredSplits(cp *Checkpointing, m *Match, uid string) map[string]checkpoint.SplitState {
	if cp == nil || cp.Restore == nil || !m.sources[uid] {
		return nil
	}
	out := map[string]checkpoint.SplitState{}
	for _, s := range cp.Restore.Sources {
		if s.UID == uid {
			for _, sp := range s.Splits {
				out[sp.ID] = sp
			}
		}
	}
	return out
}

// matchRestore matches the restored state to g, refusing the start if
// some of it cannot be mapped unless the run allows that; it reports what
// is dropped and what starts empty.
func matchRestore(g *Graph, cp *Checkpointing) (*Match, error) {
	if cp.Restore == nil {
		return nil, nil
	}
	m := MatchState(g, cp.Restore)
	if err := m.Err(); err != nil && !cp.AllowNonRestored {
		return nil, err
	}
	if cp.Log != nil {
		for _, u := range m.Unmapped {
			fmt.Fprintf(cp.Log, "not restoring %s (allowed by --allow-non-restored-state)\n", u)
		}
		for _, uid := range m.Empty {
			fmt.Fprintf(cp.Log, "%s has no state in checkpoint %d: it starts empty\n", uid, cp.Restore.ID)
		}
	}
	return m, nil
}

// recoverSinks prepares the sinks' output before any task writes: it
// removes an abandoned lineage's files, finishes the commit of a finished
// one, and commits the restored checkpoint's pending files and removes the
// output of later, incomplete checkpoints. matchRestore has refused
// pending files of sinks the job does not have.
func recoverSinks(g *Graph, cp *Checkpointing) error {
	for _, v := range g.Vertices {
		cm, ok := v.Sink.(Committer)
		if !ok {
			continue
		}
		if cp.Abandon != "" {
			if err := cm.Clean(cp.Abandon, true); err != nil {
				return fmt.Errorf("sink %s: removing the output of %s: %w", v.SinkName, cp.Abandon, err)
			}
		}
		if f := cp.Settle; f != nil {
			if !cp.Settled {
				if err := commitEach(cm, pendingOf(f, v.SinkUID)); err != nil {
					return fmt.Errorf("sink %s: committing checkpoint %d: %w", v.SinkName, f.ID, err)
				}
			}
			if err := cm.Clean(f.Job, false); err != nil {
				return fmt.Errorf("sink %s: %w", v.SinkName, err)
			}
		}
		if r := cp.Restore; r != nil {
			if err := cm.Recover(r.ID, pendingOf(r, v.SinkUID)); err != nil {
				return fmt.Errorf("restoring sink %s: %w", v.SinkName, err)
			}
		}
	}
	return nil
}

// Settle commits the pending sink files of cp.Settle and removes its
// lineage's hidden files, without running the job: all that is left of a
// job whose run died after its final checkpoint (see Checkpointing.Settle).
// Sinks are held as a run holds them.
func Settle(g *Graph, cp *Checkpointing) error {
	for _, v := range g.Vertices {
		if h, ok := v.Sink.(Holder); ok {
			release, err := h.Hold()
			if err != nil {
				return fmt.Errorf("sink %s: %w", v.SinkName, err)
			}
			defer release()
		}
	}
	return recoverSinks(g, &Checkpointing{Settle: cp.Settle})
}

// commitEach commits pending files one at a time, outside a restore: a
// file that is gone (a user moved the output away) stops neither the
// others nor the job.
func commitEach(cm Committer, pending []checkpoint.PendingFile) error {
	// The subtasks' progress is committed together, after every file: it
	// tells the sink what all of them had reached.
	var progress []checkpoint.PendingFile
	for _, p := range pending {
		if p.Progress != nil {
			progress = append(progress, p)
			continue
		}
		if err := cm.Commit([]checkpoint.PendingFile{p}); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if len(progress) > 0 {
		return cm.Commit(progress)
	}
	return nil
}

func pendingOf(md *checkpoint.Metadata, uid string) []checkpoint.PendingFile {
	var pending []checkpoint.PendingFile
	for _, s := range md.Sinks {
		if s.UID == uid {
			pending = append(pending, s.Pending...)
		}
	}
	return pending
}

// tidySinks leaves no hidden file behind a run that failed or was stopped:
// it commits the pending files of the newest complete checkpoint, which
// the coordinator may not have reached, then removes the lineage's hidden
// files, which no complete checkpoint needs any more. A later restore
// finds the same output it would have made itself.
func tidySinks(g *Graph, cp *Checkpointing) error {
	latest, err := cp.Storage.Newest()
	if err != nil {
		return fmt.Errorf("removing hidden sink files: %w", err)
	}
	var errs []error
	for _, v := range g.Vertices {
		cm, ok := v.Sink.(Committer)
		if !ok {
			continue
		}
		if latest != nil {
			if err := commitEach(cm, pendingOf(latest, v.SinkUID)); err != nil {
				// Its hidden files stay for the restore to commit.
				errs = append(errs, fmt.Errorf("sink %s: committing checkpoint %d: %w", v.SinkName, latest.ID, err))
				continue
			}
		}
		if err := cm.Clean(cp.Job, false); err != nil {
			errs = append(errs, fmt.Errorf("sink %s: %w", v.SinkName, err))
		}
	}
	return errors.Join(errs...)
}

// memoryOps is the number of v's operators that keep state in managed
// memory, with caches those that cache it there (OpSpec.CacheMemory).
func memoryOps(v *Vertex, caches bool) int {
	n := 0
	for _, op := range v.Ops {
		if op.MemorySegments > 0 || caches && op.CacheMemory {
			n++
		}
	}
	return n
}

// ErrMemory is returned when the managed memory is too small to give every
// operator subtask that needs it a share.
var ErrMemory = errors.New("memory.managed.size is too small")

// A share of managed memory is cut into at least shareSegments segments
// where it can be, of no less than minSegment bytes, and must hold at
// least minSegments of them, and as many as every operator asks for
// (OpSpec.MemorySegments): with too few, a window would spill after every
// few rows.
const (
	shareSegments = 64
	minSegments   = 8
	minSegment    = 1 << 10
)

// memoryShare divides m's budget among the subtasks of the operators that
// keep state in managed memory, and those that cache it there if the
// budget gives every operator its segments with them too (caches). It
// returns the share and its segment size: m's, or smaller for a small
// share.
func memoryShare(g *Graph, m *memseg.Manager) (share int64, seg int, caches bool, err error) {
	if share, seg, err := divide(g, m, true); err == nil {
		return share, seg, true, nil
	}
	share, seg, err = divide(g, m, false)
	return share, seg, false, err
}

func divide(g *Graph, m *memseg.Manager, caches bool) (share int64, seg int, err error) {
	users, need, needy := 0, minSegments, ""
	for _, v := range g.Vertices {
		users += memoryOps(v, caches) * v.Parallelism
		for _, op := range v.Ops {
			if op.MemorySegments > need {
				need, needy = op.MemorySegments, op.Name
			}
		}
	}
	if users == 0 {
		return 0, 0, nil
	}
	share = m.Budget() / int64(users)
	seg = m.SegmentSize()
	for seg > minSegment && int64(seg)*max(shareSegments, int64(need)) > share {
		seg /= 2
	}
	if int64(seg)*int64(need) > share {
		if needy != "" {
			needy = " for " + needy
		}
		return 0, 0, fmt.Errorf("%w: %d bytes shared by %d stateful operator subtasks leaves %d bytes each, less than the %d%s",
			ErrMemory, m.Budget(), users, share, need*minSegment, needy)
	}
	return share / int64(seg) * int64(seg), seg, nil
}

// MinMemory is the smallest memory.managed.size: one segment.
const MinMemory = memseg.DefaultSegmentSize

// NewMemory returns the managed memory of a job with budget bytes, in
// segments of the default size, for Options.Memory.
func NewMemory(budget int64) (*memseg.Manager, error) {
	return memseg.NewManager(budget, memseg.DefaultSegmentSize)
}
