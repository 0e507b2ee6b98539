package exec

import (
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec/expr"
)

// chain runs a vertex's operators in one goroutine: each operator's
// emitter calls the next operator directly, and the last one hands its
// output to the task's output (channels or a sink).
type chain struct {
	ops []Operator
	// two is ops[0] when it reads two inputs, else nil; rows is ops[0]
	// when it takes a hash exchange's Parts.
	two   TwoInput
	rows  RowsProcessor
	alloc memory.Allocator
	names []string
	links []link // links[i] is the emitter given to ops[i]
	tail  Emitter

	metrics *VertexMetrics // nil for a chain run outside a job
	sub     *SubtaskMetrics
}

// link delivers an operator's output to the next operator of the chain.
type link struct {
	next Operator
	out  Emitter
	name string
}

func (l *link) Emit(b arrow.RecordBatch) error {
	defer b.Release()
	if b.NumRows() == 0 {
		return nil
	}
	if err := l.next.Process(b, l.out); err != nil {
		return fmt.Errorf("%s: %w", l.name, err)
	}
	return nil
}

// newChain instantiates specs for one subtask. tail receives the last
// operator's output.
func newChain(ctx *TaskContext, specs []OpSpec, tail Emitter) (*chain, error) {
	c := &chain{}
	for _, s := range specs {
		op, err := s.New()
		if err != nil {
			c.close()
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		c.ops = append(c.ops, op)
		c.names = append(c.names, s.Name)
	}
	if len(c.ops) > 0 && specs[0].TwoInput {
		two, ok := c.ops[0].(TwoInput)
		if !ok {
			c.close()
			return nil, fmt.Errorf("%s: marked two-input but is not a TwoInput", specs[0].Name)
		}
		c.two = two
	}
	if len(c.ops) > 0 && c.two == nil {
		c.rows, _ = c.ops[0].(RowsProcessor)
	}
	c.alloc = ctx.Alloc
	c.tail = tail
	if m := ctx.vertex; m != nil {
		c.metrics, c.sub = m, &m.Subtasks[ctx.Subtask]
		c.tail = &counted{next: tail, m: m, sub: c.sub}
	}
	c.links = make([]link, len(c.ops))
	for i := len(c.ops) - 2; i >= 0; i-- {
		c.links[i] = link{next: c.ops[i+1], out: c.emitterOf(i + 1), name: c.names[i+1]}
	}
	for i, op := range c.ops {
		if o, ok := op.(Opener); ok {
			if err := o.Open(ctx); err != nil {
				c.close()
				// Operators restore their state as they open.
				return nil, refused(fmt.Errorf("%s: %w", c.names[i], err), ctx.Checkpoint != nil && ctx.Checkpoint.SavepointDir != "")
			}
		}
	}
	return c, nil
}

// emitterOf returns the emitter that operator i writes to.
func (c *chain) emitterOf(i int) Emitter {
	if i+1 < len(c.ops) {
		return &c.links[i]
	}
	return c.tail
}

// push feeds a batch into the head of the chain; the chain takes it over.
// counted counts n rows into a chain that a shared source bypasses
// (sourceTask.fan).
func (c *chain) counted(n int64) {
	if c.metrics != nil {
		c.metrics.RowsIn.Add(n)
		c.sub.RowsIn.Add(n)
	}
}

func (c *chain) push(b arrow.RecordBatch) error {
	if c.metrics != nil {
		c.metrics.RowsIn.Add(b.NumRows())
		c.sub.RowsIn.Add(b.NumRows())
	}
	if len(c.ops) == 0 {
		return c.tail.Emit(b)
	}
	defer b.Release()
	if b.NumRows() == 0 {
		return nil
	}
	if err := c.ops[0].Process(b, c.emitterOf(0)); err != nil {
		return fmt.Errorf("%s: %w", c.names[0], err)
	}
	return nil
}

// pushPart feeds the rows p of a batch into the head of the chain; the
// chain takes the batch over, and gives p back.
func (c *chain) pushPart(b arrow.RecordBatch, p *Part) error {
	if c.rows == nil {
		return c.push(c.whole(b, p))
	}
	defer p.Free()
	defer b.Release()
	n := b.NumRows()
	if p.Rows != nil {
		n = int64(len(p.Rows))
	}
	if c.metrics != nil {
		c.metrics.RowsIn.Add(n)
		c.sub.RowsIn.Add(n)
	}
	if err := c.rows.ProcessRows(b, p, c.emitterOf(0)); err != nil {
		return fmt.Errorf("%s: %w", c.names[0], err)
	}
	return nil
}

// whole returns a batch of the rows p of b (b itself when p is nil or
// has every row), taking b over and giving p back.
func (c *chain) whole(b arrow.RecordBatch, p *Part) arrow.RecordBatch {
	if p == nil {
		return b
	}
	defer p.Free()
	if p.Rows == nil {
		return b
	}
	defer b.Release()
	return WithKinds(expr.Take(c.alloc, b, p.Rows), TakeKinds(b, p.Rows))
}

// pushInput feeds a batch of input side into the chain's two-input head;
// the chain takes it over.
func (c *chain) pushInput(side Side, b arrow.RecordBatch) error {
	if c.metrics != nil {
		c.metrics.RowsIn.Add(b.NumRows())
		c.sub.RowsIn.Add(b.NumRows())
	}
	defer b.Release()
	if b.NumRows() == 0 {
		return nil
	}
	if err := c.two.ProcessInput(side, b, c.emitterOf(0)); err != nil {
		return fmt.Errorf("%s: %w", c.names[0], err)
	}
	return nil
}

// inputWatermark tells the two-input head that input side's own
// watermark advanced to wm.
func (c *chain) inputWatermark(side Side, wm int64) error {
	if h, ok := c.two.(InputWatermarkHandler); ok {
		if err := h.OnInputWatermark(side, wm, c.emitterOf(0)); err != nil {
			return fmt.Errorf("%s: %w", c.names[0], err)
		}
	}
	return nil
}

// endInput tells the two-input head that input side has ended.
func (c *chain) endInput(side Side) error {
	if h, ok := c.two.(InputEnder); ok {
		if err := h.EndInput(side, c.emitterOf(0)); err != nil {
			return fmt.Errorf("%s: %w", c.names[0], err)
		}
	}
	return nil
}

// watermark lets every operator act on wm in chain order, so output caused
// by the watermark reaches the end of the chain before the watermark does.
// It returns the watermark of the chain's output: wm, or less after an
// operator that holds it back (WatermarkHolder).
func (c *chain) watermark(wm int64) (int64, error) {
	if c.metrics != nil {
		c.sub.watermark.Store(wm)
	}
	for i, op := range c.ops {
		if h, ok := op.(WatermarkHandler); ok {
			if err := h.OnWatermark(wm, c.emitterOf(i)); err != nil {
				return 0, fmt.Errorf("%s: %w", c.names[i], err)
			}
		}
		if h, ok := op.(WatermarkHolder); ok {
			wm = h.Held(wm)
		}
	}
	return wm, nil
}

// ProcessingTimeInterval is how often a task whose chain acts on
// processing time lets it look at the clock while no input arrives.
const ProcessingTimeInterval = 100 * time.Millisecond

// timer returns a channel that ticks every ProcessingTimeInterval if an
// operator of the chain acts on processing time, else nil (a channel that
// is never ready), and the function that stops it.
func (c *chain) timer() (<-chan time.Time, func()) {
	for _, op := range c.ops {
		if _, ok := op.(ProcessingTimeHandler); ok {
			t := time.NewTicker(ProcessingTimeInterval)
			return t.C, t.Stop
		}
	}
	return nil, func() {}
}

// processingTime lets every operator act on its clock in chain order.
func (c *chain) processingTime() error {
	for i, op := range c.ops {
		if h, ok := op.(ProcessingTimeHandler); ok {
			if err := h.OnProcessingTime(c.emitterOf(i)); err != nil {
				return fmt.Errorf("%s: %w", c.names[i], err)
			}
		}
	}
	return nil
}

// prepareBarrier lets every operator emit what it holds back before a
// barrier, in chain order.
func (c *chain) prepareBarrier() error {
	for i, op := range c.ops {
		if p, ok := op.(BarrierPreparer); ok {
			if err := p.PrepareBarrier(c.emitterOf(i)); err != nil {
				return fmt.Errorf("%s: %w", c.names[i], err)
			}
		}
	}
	return nil
}

// finish ends the input of every operator in chain order.
func (c *chain) finish() error {
	for i, op := range c.ops {
		if f, ok := op.(Finisher); ok {
			if err := f.Finish(c.emitterOf(i)); err != nil {
				return fmt.Errorf("%s: %w", c.names[i], err)
			}
		}
	}
	return nil
}

// close closes every operator once and reports the first error.
func (c *chain) close() error {
	var errs []error
	for i, op := range c.ops {
		if cl, ok := op.(Closer); ok {
			if err := cl.Close(); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", c.names[i], err))
			}
		}
	}
	c.ops = nil
	return errors.Join(errs...)
}
