package exec

import (
	"context"
	"fmt"
	"reflect"

	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/types"
)

// inputTask is a subtask of a vertex that reads channels: it merges its
// input channels, keeps each channel's watermark, aligns checkpoint
// barriers, and drives the chain.
type inputTask struct {
	ctx     context.Context
	name    string
	subtask int
	ins     []<-chan Element
	// sides, for a chain headed by a two-input operator, is the input
	// each channel of ins belongs to; nil for one input.
	sides []Side
	chain *chain
	out   output
	coord *coordinator // nil when the job does not checkpoint
}

func (t *inputTask) run() error {
	n := len(t.ins)
	wms := make([]int64, n)
	for i := range wms {
		wms[i] = types.MinWatermark
	}
	ended := make([]bool, n)
	// idle marks the channels whose sender is idle; idleSent that this
	// task told its readers it is idle, all its live inputs being so.
	idle := make([]bool, n)
	idleSent := false
	live := n
	current := types.MinWatermark
	align := checkpoint.NewAligner(n, t.coord == nil || !t.coord.cfg.AtLeastOnce)
	// Per input of a two-input head: its watermark and its live channels.
	var sideWM [2]int64
	var sideLive [2]int
	for _, s := range t.sides {
		sideLive[s]++
	}
	sideWM[Left], sideWM[Right] = types.MinWatermark, types.MinWatermark

	// tick is nil (never ready) unless an operator acts on processing time.
	tick, stop := t.chain.timer()
	defer stop()

	cases := make([]reflect.SelectCase, 0, n+2)
	idx := make([]int, 0, n)
	// rebuild lists the channels the task reads now: not ended, and not
	// blocked by a barrier being aligned.
	rebuild := func() {
		cases = cases[:0]
		idx = idx[:0]
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(t.ctx.Done())},
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(tick)})
		for i, ch := range t.ins {
			if !ended[i] && !align.Blocked(i) {
				cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
				idx = append(idx, i)
			}
		}
	}
	rebuild()

	for live > 0 {
		var e Element
		// from stays -1 when the tick, not a channel, was ready. One or two
		// channels (a forward input, a two-input head, a hash exchange from
		// two subtasks) are read by a plain select: reflect.Select
		// allocates its cases and a copy of every element it receives.
		from := -1
		switch len(idx) {
		case 1:
			select {
			case e = <-t.ins[idx[0]]:
				from = idx[0]
			case <-tick:
			case <-t.ctx.Done():
				return context.Cause(t.ctx)
			}
		case 2:
			select {
			case e = <-t.ins[idx[0]]:
				from = idx[0]
			case e = <-t.ins[idx[1]]:
				from = idx[1]
			case <-tick:
			case <-t.ctx.Done():
				return context.Cause(t.ctx)
			}
		default:
			chosen, v, _ := reflect.Select(cases)
			if chosen == 0 {
				return context.Cause(t.ctx)
			}
			if chosen > 1 {
				from = idx[chosen-2]
				e = v.Interface().(Element)
			}
		}
		if from < 0 {
			if err := t.processingTime(); err != nil {
				return err
			}
			continue
		}
		if e.Kind == ElemBatch || e.Kind == ElemWatermark {
			idle[from] = e.Idle
			if !e.Idle {
				idleSent = false
			}
		}
		switch e.Kind {
		case ElemBatch:
			var err error
			switch {
			case t.sides != nil:
				err = t.chain.pushInput(t.sides[from], t.chain.whole(e.Batch, e.Part))
			case e.Part != nil:
				err = t.chain.pushPart(e.Batch, e.Part)
			default:
				err = t.chain.push(e.Batch)
			}
			if err != nil {
				return err
			}
			continue
		case ElemWatermark:
			if e.Watermark > wms[from] {
				wms[from] = e.Watermark
			}
			if t.sides != nil {
				side := t.sides[from]
				if wm := t.sideMin(side, wms, ended, idle); wm > sideWM[side] && !t.stopped() {
					sideWM[side] = wm
					if err := t.chain.inputWatermark(side, wm); err != nil {
						return err
					}
				}
			}
		case ElemBarrier:
			aligned := align.Barrier(from, e.Barrier)
			if aligned {
				if err := t.checkpoint(e.Barrier, align); err != nil {
					return err
				}
			}
			rebuild()
			continue
		case ElemEnd:
			ended[from] = true
			live--
			if t.sides != nil {
				// The end of a side comes before any checkpoint it
				// completes: that side's rows are all in it.
				side := t.sides[from]
				if sideLive[side]--; sideLive[side] == 0 {
					if err := t.chain.endInput(side); err != nil {
						return err
					}
				}
			}
			if align.End(from) {
				if err := t.checkpoint(checkpoint.Barrier{ID: 0}, align); err != nil {
					return err
				}
			}
			rebuild()
		default:
			return fmt.Errorf("%s: unexpected element %v", t.name, e.Kind)
		}
		// After a stop-with-savepoint a channel's end is no watermark: the
		// others' would fire windows the savepoint holds.
		wm, active := minLive(wms, ended, idle)
		if wm > current && live > 0 && active && !t.stopped() {
			current = wm
			if err := t.advance(current); err != nil {
				return err
			}
		}
		if !active && live > 0 && !idleSent {
			idleSent = true
			if err := t.out.idle(); err != nil {
				return err
			}
		}
	}
	// After a stop-with-savepoint, what is open stays in the savepoint:
	// firing it now would emit it twice, here and after the resume.
	if current < types.MaxWatermark && !t.stopped() {
		if err := t.advance(types.MaxWatermark); err != nil {
			return err
		}
	}
	if err := t.chain.finish(); err != nil {
		return err
	}
	return t.out.end()
}

// processingTime lets the chain act on its clock, unless the job has
// stopped with a savepoint: what would fire is in the savepoint.
func (t *inputTask) processingTime() error {
	if t.stopped() {
		return nil
	}
	return t.chain.processingTime()
}

// stopped reports whether the job's stop-with-savepoint is complete.
func (t *inputTask) stopped() bool { return t.coord != nil && t.coord.stopped.Load() }

// checkpoint takes the aligned checkpoint or savepoint. b.ID 0 means the barrier being
// aligned, completed by a channel's end rather than by a barrier.
func (t *inputTask) checkpoint(b checkpoint.Barrier, align *checkpoint.Aligner) error {
	b = align.Done()
	if t.coord == nil {
		return fmt.Errorf("%s: barrier in a job without checkpoints", t.name)
	}
	return takeCheckpoint(t.coord, t.subtask, b, t.chain, t.out, nil)
}

func (t *inputTask) advance(wm int64) error {
	wm, err := t.chain.watermark(wm)
	if err != nil {
		return err
	}
	return t.out.watermark(wm)
}

// sideMin is the minimum watermark over the live channels of input side
// that are not idle: the end of time once all have ended, and the
// smallest watermark, which advances nothing, while the live ones are all
// idle.
func (t *inputTask) sideMin(side Side, wms []int64, ended, idle []bool) int64 {
	m, live, active := types.MaxWatermark, false, false
	for i, w := range wms {
		if t.sides[i] == side && !ended[i] {
			live = true
			if !idle[i] {
				active = true
				m = min(m, w)
			}
		}
	}
	if live && !active {
		return types.MinWatermark
	}
	return m
}

// minLive is the minimum watermark over channels that have not ended and
// are not idle; active is false when every channel that has not ended is
// idle: the watermark then stays where it is.
func minLive(wms []int64, ended, idle []bool) (wm int64, active bool) {
	m := types.MaxWatermark
	for i, w := range wms {
		if !ended[i] && !idle[i] {
			active = true
			m = min(m, w)
		}
	}
	return m, active
}
