package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

// sourceTask is a subtask of a source vertex. It reads its splits in turn,
// a batch at a time (one after another for an InOrder source), and
// decides lateness per split against that split's own watermark, so the
// rows it drops depend only on the split's content: never on parallelism,
// batch size or timing.
type sourceTask struct {
	ctx   context.Context
	spec  *SourceSpec
	tc    *TaskContext
	opts  ReadOptions
	split []Split
	chain *chain
	out   output
	// drops, for a shared source (its out a fanOutput, no operators),
	// drops late rows per output edge: drops[i] is edge i's Fires, or nil.
	drops []func(int64) int64

	// Checkpoints: nil coord when the job does not checkpoint.
	coord    *coordinator
	trigger  <-chan checkpoint.Barrier
	restored map[string]checkpoint.SplitState

	computed []*expr.Program
	wmProg   *expr.Program
	ectx     *expr.Ctx
	schema   *arrow.Schema
	sel      []int32
	sels     [][]int32 // per output edge, for drops
	// late decides lateness by spec.Fires, lates per output edge by
	// drops.
	late  lateness
	lates []lateness
	// inOrder reads the splits one after another (InOrder).
	inOrder bool
	// pace keeps an inOrder subtask close to the source's others; nil at
	// parallelism 1. all are the splits the source's subtasks share,
	// split being this subtask's share of them: the pacer measures them.
	pace *pacer
	all  []Split
}

// lateness decides which rows are late by a Fires function (SourceSpec.Fires),
// calling it only for a row whose time is below the least time known not
// to be late at the watermark: Fires does not decrease as time grows (a
// later row's first window fires no earlier), so a row at or after one
// whose window fires past the watermark is not late either. Rows mostly
// come in time order, so Fires is called about once per window instead of
// once per row.
type lateness struct {
	fires func(int64) int64
	// lo is a time seen and at is Fires(lo); valid when ok.
	lo, at int64
	ok     bool
}

// late reports whether a row of time ts is late at watermark wm.
func (l *lateness) late(ts, wm int64) bool {
	if l.ok && ts >= l.lo && l.at > wm {
		return false
	}
	f := l.fires(ts)
	if f <= wm {
		return true
	}
	l.lo, l.at, l.ok = ts, f, true
	return false
}

// splitState is one split being read.
type splitState struct {
	split Split
	// r reads the split; nil while an InOrder source's split waits its
	// turn and once a split is done, so that a subtask holds one file
	// open at a time however many it reads. off is where r opens, or
	// where it ended.
	r    SplitReader
	off  Offset
	wm   int64
	done bool
	// pos is the split's offset counted in Metrics.BytesRead, or -1 if
	// its source is not sized; size is its Size.
	pos, size int64
	// last is when the split last had rows, idle whether it has had none
	// for the source's IdleTimeout since: it is then left out of the
	// watermark.
	last time.Time
	idle bool
	// started is false for a split of an InOrder source not read yet,
	// which holds the watermark at floor, the watermark its first row
	// gives it (splitFloor).
	started bool
	floor   int64
}

func (t *sourceTask) run() error {
	if err := t.compile(); err != nil {
		return err
	}
	states := make([]*splitState, 0, len(t.split))
	defer func() { closeSplits(states) }()
	disc, discovering := t.spec.Source.(Discovering)
	if o, ok := t.spec.Source.(InOrder); ok && o.InOrder() && t.spec.Source.Bounded() && !discovering {
		t.inOrder = true
	}
	if t.tc.pace != nil {
		// Whatever ends the subtask, no other waits for it.
		defer t.tc.pace.done(t.tc.Subtask)
		if t.inOrder {
			t.pace = t.tc.pace
			t.pace.sizes(t.all, t.spec.Source)
		} else {
			t.tc.pace.done(t.tc.Subtask)
		}
	}
	if a := t.tc.align; a != nil {
		// Whatever ends the subtask, no other waits for it.
		defer a.hold(holdsNone)
	}
	for _, s := range t.split {
		st, err := t.open(s)
		if err != nil {
			return err
		}
		states = append(states, st)
	}
	var ahead *floorsAhead
	if t.inOrder {
		ahead = newFloorsAhead(states)
	}

	emitted := types.MinWatermark
	idleSent := false // the readers were told the subtask is idle
	live := len(states)
	first := 0 // every split before it is done
	var nextDiscovery time.Time
	if discovering {
		nextDiscovery = time.Now().Add(disc.DiscoverEvery())
	}
	for live > 0 || discovering {
		if discovering && !time.Now().Before(nextDiscovery) {
			found, err := t.discover(states)
			if err != nil {
				return err
			}
			states = append(states, found...)
			live += len(found)
			nextDiscovery = time.Now().Add(disc.DiscoverEvery())
		}
		if live == 0 {
			// Nothing to read until a split is found: answer checkpoints,
			// and hold no one back.
			if a := t.tc.align; a != nil {
				a.hold(holdsNone)
			}
			if stop, err := t.poll(states); err != nil || stop {
				if err == nil {
					err = t.stop()
				}
				return err
			}
			select {
			case <-t.ctx.Done():
				return context.Cause(t.ctx)
			case <-time.After(discoveryIdle):
			}
			continue
		}
		for first < len(states) && states[first].done {
			first++
		}
		for i, st := range states[first:] {
			if st.done {
				continue
			}
			if err := context.Cause(t.ctx); err != nil {
				return err
			}
			if t.pace != nil {
				stop, err := t.keepPace(states, first+i, st)
				if err != nil {
					return err
				}
				if stop {
					return t.stop()
				}
			}
			if a := t.tc.align; a != nil {
				stop, err := t.waitWhile(states, a.ahead)
				if err != nil {
					return err
				}
				if stop {
					return t.stop()
				}
			}
			if st.r == nil {
				r, err := t.spec.Source.Open(st.split, st.off, t.opts)
				if err != nil {
					return err
				}
				st.r = r
			}
			if !st.started {
				// Its rows are judged against what the subtask emitted,
				// which is at most its floor: they are late exactly when
				// they would be from the split's own start.
				st.started = true
				st.wm = max(st.wm, emitted)
			}
			b, err := st.r.Next()
			if st.pos >= 0 {
				pos := st.read(st.r.Offset())
				t.tc.Metrics.BytesRead.Add(pos - st.pos)
				st.pos = pos
			}
			if errors.Is(err, io.EOF) {
				st.done = true
				live--
			} else if err != nil {
				return err
			} else {
				if t.spec.IdleTimeout > 0 && t.active(st, b.NumRows() > 0, emitted) {
					idleSent = false
				}
				if err := t.process(st, b); err != nil {
					return err
				}
			}
			if r, ok := st.r.(Watermarked); ok {
				st.wm = max(st.wm, r.Watermark())
			}
			if st.done {
				st.close()
			}
			var wm int64
			var active bool
			if ahead != nil {
				wm, active = ahead.watermark(states, first)
			} else {
				wm, active = splitsWatermark(states[first:])
			}
			if wm > emitted && live > 0 && active {
				emitted = wm
				if err := t.advance(wm); err != nil {
					return err
				}
			}
			if !active && live > 0 && !idleSent {
				idleSent = true
				if err := t.out.idle(); err != nil {
					return err
				}
			}
			if a := t.tc.align; a != nil {
				// The subtask holds its group back at what it emitted,
				// unless all its splits are idle or done.
				held := emitted
				if idleSent || live == 0 {
					held = holdsNone
				}
				a.hold(held)
			}
			stop, err := t.poll(states)
			if err != nil {
				return err
			}
			if stop {
				return t.stop()
			}
			if t.inOrder {
				break // the next batch is this split's again, until it ends
			}
		}
	}
	if t.pace != nil {
		t.pace.done(t.tc.Subtask) // before the final checkpoint, which waits for every source
	}
	if a := t.tc.align; a != nil {
		a.hold(holdsNone) // as for the pacer
	}
	if t.spec.Source.Bounded() || len(states) == 0 {
		if err := t.advance(types.MaxWatermark); err != nil {
			return err
		}
	}
	if err := t.awaitFinalCheckpoint(states); err != nil {
		return err
	}
	return t.stop()
}

// keepPace records that the subtask is at its k-th split, st, and waits
// while that is ahead of the source's other subtasks (pacer); stop is
// waitWhile's.
func (t *sourceTask) keepPace(states []*splitState, k int, st *splitState) (stop bool, err error) {
	pos := t.pace.position(t.tc.Subtask, k, st.pos, st.size)
	t.pace.set(t.tc.Subtask, pos)
	ahead := func() bool { return t.pace.ahead(t.tc.Subtask, pos) }
	if a := t.tc.align; a != nil && ahead() {
		// Reading nothing meanwhile, it holds no one of its alignment
		// group back: the subtask it waits for may wait for it there.
		held := a.held
		a.hold(holdsNone)
		defer a.hold(held)
	}
	return t.waitWhile(states, ahead)
}

// waitWhile waits while ahead reports true, answering checkpoints
// meanwhile; stop is poll's. It is how a source subtask keeps pace with
// others: its source's (keepPace) and its alignment group's (aligner).
func (t *sourceTask) waitWhile(states []*splitState, ahead func() bool) (stop bool, err error) {
	if !ahead() {
		return false, nil
	}
	tick := time.NewTicker(paceWait)
	defer tick.Stop()
	for ahead() {
		if stop, err := t.poll(states); err != nil || stop {
			return stop, err
		}
		select {
		case <-t.ctx.Done():
			return false, context.Cause(t.ctx)
		case <-tick.C:
		}
	}
	return false, nil
}

// paceWait is how often a waiting subtask looks again.
const paceWait = time.Millisecond

// discoveryIdle is how long a discovering subtask without splits waits
// between looking at checkpoints and the next discovery.
const discoveryIdle = 50 * time.Millisecond

// open opens split s at its restored offset, or, unknown to the
// checkpoint of a restore of a discovering source, as a new split.
func (t *sourceTask) open(s Split) (*splitState, error) {
	off, wm := Offset{}, types.MinWatermark
	if st, ok := t.restored[s.ID]; ok {
		off, wm = Offset{Pos: st.Pos, Line: st.Line, State: st.State}, st.Watermark
	} else if _, ok := t.spec.Source.(Discovering); ok && t.restored != nil {
		s.New = true
	}
	st := &splitState{split: s, off: off, wm: wm, pos: -1, last: time.Now(), started: true}
	if !t.inOrder {
		r, err := t.spec.Source.Open(s, off, t.opts)
		if err != nil {
			return nil, err
		}
		st.r = r
	}
	if t.inOrder && t.wmProg != nil && off.Pos == 0 && off.Line == 0 && wm == types.MinWatermark {
		st.started = false
		var err error
		if st.floor, err = t.splitFloor(s); err != nil {
			return nil, err
		}
	}
	if err := t.sized(st, off); err != nil {
		st.close()
		return nil, err
	}
	return st, nil
}

// peekRows and peekLimit bound splitFloor's reading: it reads batches of
// peekRows until a row gives the split a watermark, and gives up (the
// split then holds the watermark until it is read) after peekLimit rows.
const (
	peekRows  = 16
	peekLimit = 1024
)

// splitFloor is the least watermark split s can hold the subtask's at
// before it is read: the watermark of its first row with a time and a
// watermark, and below the time of every row before and including it, so
// that none of them is late against it (a row is late when Fires(ts) <=
// watermark, and every Fires is at least ts). Every later row is judged
// against at least that watermark. An empty split has no floor
// (MaxWatermark). It reads the split with a reader of its own, counting
// nothing in the job's metrics. A row it cannot read or compute (a
// malformed line without ignore-parse-errors) leaves the split without a
// floor (MinWatermark): the error is the split's reader's, when the
// subtask reaches it after the splits before it, as in Flink.
func (t *sourceTask) splitFloor(s Split) (int64, error) {
	ro := t.opts
	ro.BatchSize, ro.Metrics, ro.Peek = peekRows, &Metrics{}, true
	r, err := t.spec.Source.Open(s, Offset{}, ro)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	floor := types.MaxWatermark
	for read := int64(0); read < peekLimit; {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			return floor, nil
		}
		if err != nil {
			return types.MinWatermark, nil // failing where the split is read
		}
		read += b.NumRows()
		var found bool
		floor, found, err = t.firstWatermark(b, floor)
		switch {
		case err != nil:
			return types.MinWatermark, nil
		case found:
			return floor, nil
		}
	}
	return types.MinWatermark, nil
}

// firstWatermark lowers floor to below the time of each row of b up to
// the first with a watermark, and to that watermark; found reports
// whether there was one. It releases b.
func (t *sourceTask) firstWatermark(b arrow.RecordBatch, floor int64) (_ int64, found bool, err error) {
	if t.computed != nil {
		full, err := t.compute(b)
		b.Release()
		if err != nil {
			return 0, false, err
		}
		b = full
	}
	defer b.Release()
	wmArr, err := t.wmProg.Eval(t.ectx, b)
	if err != nil {
		return 0, false, fmt.Errorf("watermark: %w", err)
	}
	defer wmArr.Release()
	cand := wmArr.(*array.Timestamp)
	ts := b.Column(t.spec.TimeCol).(*array.Timestamp)
	for i := range int(b.NumRows()) {
		if ts.IsNull(i) {
			continue // a bad row, dropped
		}
		if v := int64(ts.Value(i)); v > types.MinWatermark {
			floor = min(floor, v-1)
		} else {
			floor = types.MinWatermark
		}
		if cand.IsValid(i) {
			return min(floor, int64(cand.Value(i))), true, nil
		}
	}
	return floor, false, nil
}

// discover opens the subtask's splits the source has found since it last
// looked: those whose index is the subtask's modulo the parallelism.
func (t *sourceTask) discover(have []*splitState) ([]*splitState, error) {
	splits, err := t.spec.Source.Splits()
	if err != nil {
		return nil, err
	}
	splits = t.spec.owned(splits)
	known := map[string]bool{}
	for _, st := range have {
		known[st.split.ID] = true
	}
	var found []*splitState
	for i := t.tc.Subtask; i < len(splits); i += max(t.tc.Parallelism, 1) {
		if s := splits[i]; !known[s.ID] {
			st, err := t.open(s)
			if err != nil {
				closeSplits(found)
				return nil, err
			}
			found = append(found, st)
		}
	}
	return found, nil
}

// sized counts the split's size in Metrics.BytesTotal and what lies
// before off, where a restored run resumes, as read, if its source is
// sized.
func (t *sourceTask) sized(st *splitState, off Offset) error {
	sz, ok := t.spec.Source.(Sized)
	if !ok {
		return nil
	}
	n, err := sz.Size(st.split)
	if err != nil || n < 0 {
		return err
	}
	st.size = n
	st.pos = st.read(off)
	t.tc.Metrics.BytesTotal.Add(n)
	t.tc.Metrics.BytesRead.Add(st.pos)
	return nil
}

// read is how many of the split's bytes lie before off: Pos counts from
// the start of the file, and the split's range from its Start (a range's
// zero offset, before its first line is found, is its Start). A range
// reads its last line past its end, which the next range skips: that
// counts as the next range's.
func (st *splitState) read(off Offset) int64 {
	return min(max(off.Pos-st.split.Start, 0), st.size)
}

// stop ends the subtask's output.
func (t *sourceTask) stop() error {
	if err := t.chain.finish(); err != nil {
		return err
	}
	return t.out.end()
}

// poll takes a checkpoint if the coordinator asked for one. It reports
// whether the subtask must stop: a stop-with-savepoint is complete.
func (t *sourceTask) poll(states []*splitState) (stop bool, err error) {
	if t.coord == nil {
		return false, nil
	}
	select {
	case b := <-t.trigger:
		return t.checkpoint(b, states)
	default:
		return false, nil
	}
}

// awaitFinalCheckpoint keeps a source whose input is consumed answering
// checkpoints until the job's final checkpoint is complete, so that
// everything written is committed before the job ends.
func (t *sourceTask) awaitFinalCheckpoint(states []*splitState) error {
	if t.coord == nil {
		return nil
	}
	select {
	case t.coord.sourceDone <- struct{}{}:
	case <-t.ctx.Done():
		return context.Cause(t.ctx)
	}
	for {
		select {
		case b := <-t.trigger:
			if stop, err := t.checkpoint(b, states); err != nil || stop {
				return err
			}
		case <-t.coord.finish:
			return nil
		case <-t.ctx.Done():
			return context.Cause(t.ctx)
		}
	}
}

// checkpoint records where each split resumes, and its watermark, then
// snapshots the chain and emits the barrier after every row read so far.
//
// A stop-with-savepoint's barrier (b.Stop) is the subtask's last output
// if the savepoint completes: it waits for the outcome and reports stop.
// If the savepoint fails the job goes on, unless it drained: the windows
// have fired then, and rows after them would be late, so the job fails
// and restarts from its last checkpoint instead.
func (t *sourceTask) checkpoint(b checkpoint.Barrier, states []*splitState) (stop bool, err error) {
	// A savepoint abandoned before the barrier got here (nil sp) is over:
	// draining for it would fire every window and leave the job running
	// with its watermark at the end of time, every later row late.
	sp := t.coord.savepoint(b.ID)
	if b.Stop && b.Drain && sp != nil {
		if err := t.advance(types.MaxWatermark); err != nil {
			return false, err
		}
	}
	src := &checkpoint.SourceState{UID: t.spec.UID}
	for _, st := range states {
		off := st.offset()
		src.Splits = append(src.Splits, checkpoint.SplitState{ID: st.split.ID, Pos: off.Pos, Line: off.Line, Watermark: st.wm, State: off.State})
	}
	if err := takeCheckpoint(t.coord, t.tc.Subtask, b, t.chain, t.out, src); err != nil {
		return false, err
	}
	if !b.Stop || sp == nil {
		return false, nil
	}
	select {
	case <-sp.done:
	case <-t.ctx.Done():
		return false, context.Cause(t.ctx)
	}
	if sp.err != nil && b.Drain {
		return false, fmt.Errorf("stop --drain: savepoint %d failed after every window had fired: %w", b.ID, sp.err)
	}
	return sp.err == nil, nil
}

func (t *sourceTask) compile() error {
	t.late.fires = t.spec.Fires
	for _, e := range t.spec.Computed {
		p, err := expr.Compile(e, t.spec.Source.Schema())
		if err != nil {
			return fmt.Errorf("computed column: %w", err)
		}
		t.computed = append(t.computed, p)
	}
	if t.spec.Watermark != nil {
		p, err := expr.Compile(t.spec.Watermark, t.spec.Schema)
		if err != nil {
			return fmt.Errorf("watermark: %w", err)
		}
		t.wmProg = p
	}
	t.ectx = &expr.Ctx{Alloc: t.tc.Alloc, Now: t.tc.Now}
	t.schema = t.spec.Schema.Arrow()
	return nil
}

// process computes columns, advances the split's watermark row by row and
// drops the rows that are late against it, then pushes the rest.
func (t *sourceTask) process(st *splitState, b arrow.RecordBatch) error {
	n := b.NumRows()
	if n == 0 {
		b.Release()
		return nil
	}
	t.tc.Metrics.RowsRead.Add(n)
	if t.computed != nil {
		full, err := t.compute(b)
		b.Release()
		if err != nil {
			return err
		}
		b = full
	}
	if t.wmProg == nil {
		return t.chain.push(b)
	}
	wmArr, err := t.wmProg.Eval(t.ectx, b)
	if err != nil {
		b.Release()
		return fmt.Errorf("watermark: %w", err)
	}
	defer wmArr.Release()
	cand := wmArr.(*array.Timestamp)
	ts := b.Column(t.spec.TimeCol).(*array.Timestamp)
	tsv, candv := ts.Values(), cand.Values()
	if t.drops != nil {
		return t.fan(st, b, ts, cand)
	}

	if ts.NullN() == 0 && cand.NullN() == 0 && len(tsv) > 0 {
		// No row is late if the earliest one is not late at the
		// watermark after the last (the watermark only grows, and Fires
		// does not decrease with time): one call of Fires per batch.
		lo, wm := tsv[0], st.wm
		for i, v := range tsv {
			lo = min(lo, v)
			wm = max(wm, int64(candv[i]))
		}
		if t.spec.Fires == nil || t.spec.Fires(int64(lo)) > wm {
			st.wm = wm
			return t.chain.push(b)
		}
	}
	// t.sel lists the rows kept once a row has been dropped: until then
	// every row is.
	t.sel = t.sel[:0]
	wm := st.wm
	var late, bad int64
	dropped := false
	drop := func(i int) {
		if !dropped {
			dropped = true
			for r := range i {
				t.sel = append(t.sel, int32(r))
			}
		}
	}
	nullTs, nullCand, fires := ts.NullN() > 0, cand.NullN() > 0, t.spec.Fires != nil
	for i, v := range tsv {
		if nullTs && ts.IsNull(i) {
			bad++
			drop(i)
			continue
		}
		if fires && t.late.late(int64(v), wm) {
			late++
			drop(i)
			continue
		}
		if dropped {
			t.sel = append(t.sel, int32(i))
		}
		if c := int64(candv[i]); c > wm && (!nullCand || cand.IsValid(i)) {
			wm = c
		}
	}
	st.wm = wm
	if late+bad == 0 {
		return t.chain.push(b)
	}
	t.tc.Metrics.LateRows.Add(late)
	t.tc.Metrics.BadRows.Add(bad)
	sub := t.tc.counters()
	sub.LateRows.Add(late)
	sub.BadRows.Add(bad)
	kept := WithKinds(expr.Take(t.tc.Alloc, b, t.sel), TakeKinds(b, t.sel))
	b.Release()
	return t.chain.push(kept)
}

// fan is process for a source shared by pipelines that drop other rows
// as late: each output edge gets the rows not late for its reader,
// against the split's watermark before the row. The watermark advances
// on every row with a time, as without windows (a row late for a window
// cannot advance it: its time is at most the watermark).
func (t *sourceTask) fan(st *splitState, b arrow.RecordBatch, ts, cand *array.Timestamp) error {
	defer b.Release()
	tsv, candv := ts.Values(), cand.Values()
	if len(t.sels) != len(t.drops) {
		t.sels = make([][]int32, len(t.drops))
		t.lates = make([]lateness, len(t.drops))
		for k, fires := range t.drops {
			t.lates[k].fires = fires
		}
	}
	for i := range t.sels {
		t.sels[i] = t.sels[i][:0]
	}
	wm := st.wm
	var late, bad int64
	for i := range tsv {
		if ts.IsNull(i) {
			bad++
			continue
		}
		for k, fires := range t.drops {
			if fires != nil && t.lates[k].late(int64(tsv[i]), wm) {
				late++
				continue
			}
			t.sels[k] = append(t.sels[k], int32(i))
		}
		if cand.IsValid(i) && int64(candv[i]) > wm {
			wm = int64(candv[i])
		}
	}
	st.wm = wm
	if late+bad > 0 {
		t.tc.Metrics.LateRows.Add(late)
		t.tc.Metrics.BadRows.Add(bad)
		sub := t.tc.counters()
		sub.LateRows.Add(late)
		sub.BadRows.Add(bad)
	}
	t.chain.counted(int64(len(tsv)) - bad)
	outs := t.out.(fanOutput)
	for k, sel := range t.sels {
		var part arrow.RecordBatch
		switch {
		case len(sel) == len(tsv):
			b.Retain()
			part = b
		case len(sel) == 0:
			continue
		default:
			part = WithKinds(expr.Take(t.tc.Alloc, b, sel), TakeKinds(b, sel))
		}
		if err := outs[k].Emit(part); err != nil {
			return err
		}
	}
	return nil
}

// compute evaluates the table's computed columns over a physical batch.
func (t *sourceTask) compute(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(t.computed))
	for i, p := range t.computed {
		a, err := p.Eval(t.ectx, b)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, fmt.Errorf("column %s: %w", t.spec.Schema[i].Name, err)
		}
		cols[i] = a
	}
	out := array.NewRecordBatch(t.schema, cols, b.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return Rekind(out, b), nil // a changelog source's kinds stay with its rows
}

func (t *sourceTask) advance(wm int64) error {
	wm, err := t.chain.watermark(wm)
	if err != nil {
		return err
	}
	return t.out.watermark(wm)
}

// active tracks whether split st is idle (SourceSpec.IdleTimeout), given
// whether its last read had rows, and reports whether it became active
// again. A split back from idleness takes at least the watermark the
// subtask emitted meanwhile, so that its rows late for windows that fired
// without it are dropped here, counted, as any late row.
func (t *sourceTask) active(st *splitState, rows bool, emitted int64) (again bool) {
	now := time.Now()
	if rows {
		st.last = now
		if st.idle {
			st.idle = false
			st.wm = max(st.wm, emitted)
			return true
		}
		return false
	}
	if !st.idle && now.Sub(st.last) >= t.spec.IdleTimeout {
		st.idle = true
	}
	return false
}

// watermark is what the split holds the subtask's watermark at, its floor
// until it starts; ok is false for a split done or idle, which holds
// nothing.
func (st *splitState) watermark() (wm int64, ok bool) {
	switch {
	case st.done || st.idle:
		return 0, false
	case st.started:
		return st.wm, true
	default:
		return st.floor, true
	}
}

// splitsWatermark is the minimum watermark over splits still being read
// and not idle, a split not started yet counting at its floor; active is
// false when every such split is idle.
func splitsWatermark(states []*splitState) (wm int64, active bool) {
	m := types.MaxWatermark
	for _, st := range states {
		if w, ok := st.watermark(); ok {
			m, active = min(m, w), true
		}
	}
	return m, active || !slices.ContainsFunc(states, func(st *splitState) bool { return !st.done })
}

func closeSplits(states []*splitState) {
	for _, st := range states {
		if st != nil {
			st.close()
		}
	}
}

// offset is where the split resumes.
func (st *splitState) offset() Offset {
	if st.r != nil {
		return st.r.Offset()
	}
	return st.off
}

// close closes the split's reader, keeping its offset.
func (st *splitState) close() {
	if st.r != nil {
		st.off = st.r.Offset()
		st.r.Close()
		st.r = nil
	}
}
