package exec

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strandsql/strand/checkpoint"
)

// ErrCheckpoint marks a job failed because too many checkpoints failed in
// a row.
var ErrCheckpoint = errors.New("checkpoint failed")

// ack is one subtask's part of a checkpoint, or its refusal (err).
type ack struct {
	id      int64
	err     error
	subtask int
	source  *checkpoint.SourceState
	ops     []opAck
	sink    *checkpoint.SinkState
}

type opAck struct {
	uid, fingerprint string
	state            checkpoint.SubtaskState
}

// coordinator triggers checkpoints, collects the subtasks' acks, writes
// _metadata when every subtask has acked, then commits the sinks' pending
// files and drops old checkpoints. One checkpoint is in flight at a time.
type coordinator struct {
	cfg      *Checkpointing
	ctx      context.Context
	fail     func(error)
	maxPar   int
	expected int // acks per checkpoint: one per subtask of every vertex
	// parallelism is the highest of the job's vertices, recorded in
	// savepoints.
	parallelism int
	sinks       map[string]Committer
	notified    map[string]Notified // by source uid

	triggers   []chan checkpoint.Barrier // one per source subtask
	acks       chan ack
	sourceDone chan struct{}
	finish     chan struct{} // closed when the final checkpoint is complete
	done       chan struct{} // closed when run returns: nobody reads acks
	uploads    sync.WaitGroup

	next     int64
	failures int

	// requests are savepoints asked for (Job.Savepoint, Job.Stop);
	// queued wait for the checkpoint in flight.
	requests chan *savepointRequest
	queued   []*savepointRequest
	// stopped is set once a stop-with-savepoint is complete: tasks end
	// without firing what remains open.
	stopped atomic.Bool

	mu        sync.Mutex
	completed int64
	failed    int64
	// last is the latest completed checkpoint (not savepoint).
	last CheckpointStats
	// savepoints maps the id of each savepoint in flight to its request.
	savepoints map[int64]*savepointRequest
	// history is the latest checkpoints and savepoints, oldest first.
	history []CheckpointRecord
}

type pendingCheckpoint struct {
	id    int64
	final bool
	start time.Time
	acks  []ack
	sp    *savepointRequest // nil for a checkpoint
}

// savepointRequest is a savepoint asked for, and its outcome.
type savepointRequest struct {
	dir         string
	stop, drain bool
	tmp, final  string // the savepoint's directory while written, and when complete

	done chan struct{} // closed when path or err is set
	path string
	err  error
}

func (r *savepointRequest) settle(path string, err error) {
	r.path, r.err = path, err
	if err != nil && r.tmp != "" {
		_ = os.RemoveAll(r.tmp)
	}
	close(r.done)
}

func newCoordinator(ctx context.Context, cfg *Checkpointing, g *Graph, maxPar int, fail func(error)) *coordinator {
	c := &coordinator{cfg: cfg, ctx: ctx, fail: fail, maxPar: maxPar, sinks: map[string]Committer{}, notified: map[string]Notified{},
		sourceDone: make(chan struct{}, 64), finish: make(chan struct{}), done: make(chan struct{}), next: max(cfg.FirstID, 1),
		requests: make(chan *savepointRequest), savepoints: map[int64]*savepointRequest{}}
	for _, v := range g.Vertices {
		c.expected += v.Parallelism
		c.parallelism = max(c.parallelism, v.Parallelism)
		if v.Source != nil {
			for range v.Parallelism {
				c.triggers = append(c.triggers, make(chan checkpoint.Barrier, 1))
			}
		}
		if cm, ok := v.Sink.(Committer); ok {
			c.sinks[v.SinkUID] = cm
		}
		if v.Source != nil {
			if n, ok := v.Source.Source.(Notified); ok {
				c.notified[v.Source.UID] = n
			}
		}
	}
	c.acks = make(chan ack, c.expected)
	return c
}

// run is the coordinator's goroutine. It returns when the final
// checkpoint or a stop-with-savepoint is complete, or the job is canceled.
func (c *coordinator) run() {
	defer close(c.done)
	defer c.refuseAll()
	var tick <-chan time.Time
	if c.cfg.Interval > 0 {
		t := time.NewTicker(c.cfg.Interval)
		defer t.Stop()
		tick = t.C
	}
	var (
		pending  *pendingCheckpoint
		timeout  *time.Timer
		expired  <-chan time.Time
		done     int
		wantLast bool
		// ended is when the last checkpoint ended, and paused, while
		// set, fires when MinPause after it is over, for a tick that
		// came sooner.
		ended  time.Time
		pause  *time.Timer
		paused <-chan time.Time
	)
	defer func() {
		if pause != nil {
			pause.Stop()
		}
	}()
	trigger := func(final bool, sp *savepointRequest) {
		pending = &pendingCheckpoint{id: c.next, final: final, start: time.Now(), sp: sp}
		c.next++
		c.record(pending)
		b := checkpoint.Barrier{ID: pending.id}
		if sp != nil {
			b.Kind, b.Stop, b.Drain = checkpoint.Savepoint, sp.stop, sp.drain
			c.mu.Lock()
			c.savepoints[b.ID] = sp
			c.mu.Unlock()
		}
		timeout = time.NewTimer(c.cfg.Timeout)
		expired = timeout.C
		for _, t := range c.triggers {
			select { // a trigger of an abandoned checkpoint may still wait
			case <-t:
			default:
			}
			t <- b
		}
	}
	// next starts what waits once nothing is in flight: the final
	// checkpoint of an ended input, else a queued savepoint.
	next := func() {
		if pending != nil || c.ctx.Err() != nil {
			return
		}
		if wantLast {
			for _, r := range c.queued {
				r.settle("", ErrFinishing)
			}
			c.queued = nil
			trigger(true, nil)
			return
		}
		if len(c.queued) > 0 {
			r := c.queued[0]
			c.queued = c.queued[1:]
			c.startSavepoint(r, trigger)
		}
	}
	abandon := func(err error) {
		timeout.Stop()
		c.failure(pending, err)
		pending, expired, ended = nil, nil, time.Now()
		next()
	}
	// periodic starts a periodic checkpoint, unless one is in flight or
	// the input ended, or delays it until MinPause since the last one's
	// end is over.
	periodic := func() {
		if pending != nil || wantLast || paused != nil {
			return
		}
		if wait := c.cfg.MinPause - time.Since(ended); !ended.IsZero() && wait > 0 {
			pause = time.NewTimer(wait)
			paused = pause.C
			return
		}
		trigger(false, nil)
	}
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-tick:
			periodic()
		case <-paused:
			paused = nil
			periodic()
		case r := <-c.requests:
			if wantLast {
				r.settle("", ErrFinishing)
				continue
			}
			c.queued = append(c.queued, r)
			next()
		case <-c.sourceDone:
			if done++; done == len(c.triggers) {
				wantLast = true
				next()
			}
		case a := <-c.acks:
			if pending == nil || a.id != pending.id {
				continue // a late ack of an abandoned checkpoint
			}
			if a.err != nil {
				abandon(a.err)
				continue
			}
			pending.acks = append(pending.acks, a)
			if len(pending.acks) < c.expected {
				continue
			}
			timeout.Stop()
			p := pending
			pending, expired = nil, nil
			err := c.complete(p)
			ended = time.Now()
			if err != nil {
				c.failure(p, err)
				next()
				continue
			}
			if p.final || (p.sp != nil && p.sp.stop) {
				close(c.finish)
				return
			}
			next()
		case <-expired:
			abandon(fmt.Errorf("not complete after %v", c.cfg.Timeout))
		}
	}
}

// startSavepoint creates the directory of savepoint r and triggers it, or
// settles r with the error.
func (c *coordinator) startSavepoint(r *savepointRequest, trigger func(bool, *savepointRequest)) {
	tmp, final, err := checkpoint.NewSavepointDir(r.dir, c.cfg.Job)
	if err != nil {
		r.settle("", err)
		return
	}
	r.tmp, r.final = tmp, final
	trigger(false, r)
}

// refuseAll settles every savepoint not yet taken when the coordinator
// stops.
func (c *coordinator) refuseAll() {
	for _, r := range c.queued {
		r.settle("", errors.New("the job ended before the savepoint was taken"))
	}
	c.queued = nil
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, r := range c.savepoints {
		r.settle("", errors.New("the job ended before the savepoint was complete"))
		delete(c.savepoints, id)
	}
}

// savepoint returns the request of savepoint id, nil for a checkpoint.
func (c *coordinator) savepoint(id int64) *savepointRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.savepoints[id]
}

// request asks for a savepoint and waits for its outcome.
func (c *coordinator) request(ctx context.Context, r *savepointRequest) (string, error) {
	r.done = make(chan struct{})
	select {
	case c.requests <- r:
	case <-c.done:
		return "", errors.New("the job has ended")
	case <-ctx.Done():
		return "", ctx.Err()
	}
	select {
	case <-r.done:
		return r.path, r.err
	case <-ctx.Done():
		// The savepoint goes on; its outcome is only no longer awaited.
		return "", ctx.Err()
	}
}

// complete writes checkpoint p's metadata, then commits the sinks.
func (c *coordinator) complete(p *pendingCheckpoint) error {
	md := &checkpoint.Metadata{ID: p.id, Kind: checkpoint.Periodic, Job: c.cfg.Job, CreatedUnixMs: time.Now().UnixMilli(), Finished: p.final}
	if p.sp != nil {
		md.Kind, md.StrandVersion, md.Parallelism = checkpoint.Savepoint, Version, c.parallelism
	}
	ops := map[string]*checkpoint.OperatorState{}
	srcs := map[string]*checkpoint.SourceState{}
	sinks := map[string]*checkpoint.SinkState{}
	for _, a := range p.acks {
		for _, o := range a.ops {
			op := ops[o.uid]
			if op == nil {
				op = &checkpoint.OperatorState{UID: o.uid, Fingerprint: o.fingerprint, MaxParallelism: c.maxPar}
				ops[o.uid] = op
			}
			op.Subtasks = append(op.Subtasks, o.state)
		}
		if s := a.source; s != nil {
			if srcs[s.UID] == nil {
				srcs[s.UID] = &checkpoint.SourceState{UID: s.UID}
			}
			srcs[s.UID].Splits = append(srcs[s.UID].Splits, s.Splits...)
		}
		if s := a.sink; s != nil {
			if sinks[s.UID] == nil {
				sinks[s.UID] = &checkpoint.SinkState{UID: s.UID}
			}
			sinks[s.UID].Pending = append(sinks[s.UID].Pending, s.Pending...)
		}
	}
	for _, uid := range slices.Sorted(maps.Keys(ops)) {
		op := ops[uid]
		sort.Slice(op.Subtasks, func(i, j int) bool { return op.Subtasks[i].Index < op.Subtasks[j].Index })
		md.Operators = append(md.Operators, *op)
	}
	for _, uid := range slices.Sorted(maps.Keys(srcs)) {
		s := srcs[uid]
		sort.Slice(s.Splits, func(i, j int) bool { return s.Splits[i].ID < s.Splits[j].ID })
		md.Sources = append(md.Sources, *s)
	}
	for _, uid := range slices.Sorted(maps.Keys(sinks)) {
		md.Sinks = append(md.Sinks, *sinks[uid])
	}
	if p.sp != nil {
		if err := checkpoint.WriteSavepoint(p.sp.tmp, p.sp.final, md); err != nil {
			return err
		}
	} else if err := c.cfg.Storage.Write(md); err != nil {
		return err
	}
	c.recorded(p, md, nil)
	// The checkpoint is complete: what follows cannot undo it, so a
	// failure here fails the job, and the restore repeats the commit.
	for _, s := range md.Sinks {
		if cm := c.sinks[s.UID]; cm != nil {
			if err := cm.Commit(s.Pending); err != nil {
				c.fail(fmt.Errorf("committing checkpoint %d: %w", p.id, err))
				if p.sp != nil {
					c.settled(p)
				}
				return nil
			}
		}
	}
	for _, s := range md.Sources {
		if n := c.notified[s.UID]; n != nil {
			n.Completed(s.Splits)
		}
	}
	if p.sp != nil {
		if p.sp.stop {
			c.stopped.Store(true)
		}
		// Logged before the caller hears of it, so the log is in order.
		c.logf("savepoint %d completed in %s: %s", p.id, time.Since(p.start).Round(time.Millisecond), p.sp.final)
		c.settled(p)
		return nil
	}
	if err := c.cfg.Storage.Retain(max(c.cfg.Retained, 1)); err != nil {
		c.logf("checkpoint %d: dropping old checkpoints: %v", p.id, err)
	}
	c.failures = 0
	c.mu.Lock()
	c.completed++
	c.last.LastID, c.last.Last = p.id, time.UnixMilli(md.CreatedUnixMs)
	c.last.LastDuration = time.Since(p.start)
	c.last.LastSize, c.last.LastWritten = sizes(md)
	last := c.last
	c.mu.Unlock()
	c.logf("checkpoint %d completed in %s, %s written, state %s", p.id, last.LastDuration.Round(time.Millisecond),
		Bytes(last.LastWritten), Bytes(last.LastSize))
	return nil
}

// settled reports savepoint p, whose _metadata is written, complete to
// whoever asked for it.
func (c *coordinator) settled(p *pendingCheckpoint) {
	c.mu.Lock()
	delete(c.savepoints, p.id)
	c.mu.Unlock()
	p.sp.settle(p.sp.final, nil)
}

// failure records that checkpoint p failed. A failed savepoint is
// reported to whoever asked for it and leaves the job running: it does not
// count against the tolerated checkpoint failures.
func (c *coordinator) failure(p *pendingCheckpoint, err error) {
	id := p.id
	c.recorded(p, nil, err)
	if p.sp != nil {
		c.mu.Lock()
		delete(c.savepoints, id)
		c.mu.Unlock()
		c.logf("savepoint %d failed: %v", id, err)
		p.sp.settle("", err)
		return
	}
	if c.ctx.Err() != nil {
		return
	}
	c.failures++
	c.mu.Lock()
	c.failed++
	c.mu.Unlock()
	c.logf("checkpoint %d failed: %v", id, err)
	if c.failures > c.cfg.Tolerable {
		c.fail(fmt.Errorf("%w: %d in a row, more than the %d tolerated; last: checkpoint %d: %w", ErrCheckpoint, c.failures, c.cfg.Tolerable, id, err))
	}
}

func (c *coordinator) logf(format string, args ...any) {
	if c.cfg.Log != nil {
		fmt.Fprintf(c.cfg.Log, format+"\n", args...)
	}
}

// stats returns the run's checkpoint counts and latest checkpoint.
func (c *coordinator) stats() CheckpointStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.last
	s.Completed, s.Failed = c.completed, c.failed
	return s
}

// send delivers a subtask's ack unless the job is over.
func (c *coordinator) send(a ack) {
	select {
	case c.acks <- a:
	case <-c.ctx.Done():
	case <-c.done:
	}
}
