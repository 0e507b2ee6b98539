package exec

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
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
	sinks    map[string]Committer

	triggers   []chan checkpoint.Barrier // one per source subtask
	acks       chan ack
	sourceDone chan struct{}
	finish     chan struct{} // closed when the final checkpoint is complete
	done       chan struct{} // closed when run returns: nobody reads acks
	uploads    sync.WaitGroup

	next     int64
	failures int

	mu        sync.Mutex
	completed int64
	failed    int64
}

type pendingCheckpoint struct {
	id    int64
	final bool
	start time.Time
	acks  []ack
}

func newCoordinator(ctx context.Context, cfg *Checkpointing, g *Graph, maxPar int, fail func(error)) *coordinator {
	c := &coordinator{cfg: cfg, ctx: ctx, fail: fail, maxPar: maxPar, sinks: map[string]Committer{},
		sourceDone: make(chan struct{}, 64), finish: make(chan struct{}), done: make(chan struct{}), next: max(cfg.FirstID, 1)}
	for _, v := range g.Vertices {
		c.expected += v.Parallelism
		if v.Source != nil {
			for range v.Parallelism {
				c.triggers = append(c.triggers, make(chan checkpoint.Barrier, 1))
			}
		}
		if cm, ok := v.Sink.(Committer); ok {
			c.sinks[v.SinkUID] = cm
		}
	}
	c.acks = make(chan ack, c.expected)
	return c
}

// run is the coordinator's goroutine. It returns when the final
// checkpoint is complete or the job is canceled.
func (c *coordinator) run() {
	defer close(c.done)
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
	)
	trigger := func(final bool) {
		pending = &pendingCheckpoint{id: c.next, final: final, start: time.Now()}
		c.next++
		timeout = time.NewTimer(c.cfg.Timeout)
		expired = timeout.C
		for _, t := range c.triggers {
			select { // a trigger of an abandoned checkpoint may still wait
			case <-t:
			default:
			}
			t <- checkpoint.Barrier{ID: pending.id}
		}
	}
	abandon := func(err error) {
		timeout.Stop()
		c.failure(pending.id, err)
		pending, expired = nil, nil
		if wantLast && c.ctx.Err() == nil {
			trigger(true)
		}
	}
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-tick:
			if pending == nil && !wantLast {
				trigger(false)
			}
		case <-c.sourceDone:
			if done++; done == len(c.triggers) {
				wantLast = true
				if pending == nil {
					trigger(true)
				}
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
			if err := c.complete(p); err != nil {
				c.failure(p.id, err)
				if wantLast && c.ctx.Err() == nil {
					trigger(true)
				}
				continue
			}
			if p.final {
				close(c.finish)
				return
			}
			if wantLast {
				trigger(true)
			}
		case <-expired:
			abandon(fmt.Errorf("not complete after %v", c.cfg.Timeout))
		}
	}
}

// complete writes checkpoint p's metadata, then commits the sinks.
func (c *coordinator) complete(p *pendingCheckpoint) error {
	md := &checkpoint.Metadata{ID: p.id, Kind: checkpoint.Periodic, Job: c.cfg.Job, CreatedUnixMs: time.Now().UnixMilli(), Finished: p.final}
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
	if err := c.cfg.Storage.Write(md); err != nil {
		return err
	}
	// The checkpoint is complete: what follows cannot undo it, so a
	// failure here fails the job, and the restore repeats the commit.
	for _, s := range md.Sinks {
		if cm := c.sinks[s.UID]; cm != nil {
			if err := cm.Commit(s.Pending); err != nil {
				c.fail(fmt.Errorf("committing checkpoint %d: %w", p.id, err))
				return nil
			}
		}
	}
	if err := c.cfg.Storage.Retain(max(c.cfg.Retained, 1)); err != nil {
		c.logf("checkpoint %d: dropping old checkpoints: %v", p.id, err)
	}
	c.failures = 0
	c.mu.Lock()
	c.completed++
	c.mu.Unlock()
	c.logf("checkpoint %d completed in %s", p.id, time.Since(p.start).Round(time.Millisecond))
	return nil
}

func (c *coordinator) failure(id int64, err error) {
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

// counts returns the numbers of completed and failed checkpoints.
func (c *coordinator) counts() (completed, failed int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.completed, c.failed
}

// send delivers a subtask's ack unless the job is over.
func (c *coordinator) send(a ack) {
	select {
	case c.acks <- a:
	case <-c.ctx.Done():
	case <-c.done:
	}
}
