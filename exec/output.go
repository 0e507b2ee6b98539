package exec

import (
	"bytes"
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/memseg"
)

// output is the end of a subtask's chain: it distributes batches and
// control elements to the next vertex's subtasks, or writes to a sink.
type output interface {
	Emitter
	watermark(wm int64) error
	// barrier passes checkpoint barrier b on; a sink pre-commits instead
	// and returns what it pre-committed.
	barrier(b checkpoint.Barrier) (*checkpoint.SinkState, error)
	end() error
}

// send delivers e to ch, or gives up when the job is canceled. A full
// channel blocks the sender: that is the backpressure; nothing is dropped.
func send(ctx context.Context, ch chan<- Element, e Element) error {
	select {
	case ch <- e:
		return nil
	case <-ctx.Done():
		if e.Batch != nil {
			e.Batch.Release()
		}
		return context.Cause(ctx)
	}
}

// chanOutput sends to the channels of the downstream subtasks.
type chanOutput struct {
	ctx  context.Context
	kind PartKind
	outs []chan<- Element // one per downstream subtask
	self int              // this subtask's index, for Forward
	next int              // round-robin position, for Rebalance

	// Hash partitioning.
	keys   []int
	maxPar int
	alloc  memory.Allocator
	enc    memseg.KeyEncoder
	key    []byte
	prev   []byte // the previous row's key
	sels   [][]int32
	// owner maps a key group to the subtask that owns it: two divisions
	// per row saved.
	owner []int32
}

func (o *chanOutput) Emit(b arrow.RecordBatch) error {
	if b.NumRows() == 0 {
		b.Release()
		return nil
	}
	switch o.kind {
	case Forward:
		return send(o.ctx, o.outs[o.self], Element{Kind: ElemBatch, Batch: b})
	case Global:
		return send(o.ctx, o.outs[0], Element{Kind: ElemBatch, Batch: b})
	case Rebalance:
		o.next = (o.next + 1) % len(o.outs)
		return send(o.ctx, o.outs[o.next], Element{Kind: ElemBatch, Batch: b})
	case Broadcast:
		for i, ch := range o.outs {
			if i > 0 {
				b.Retain()
			}
			if err := send(o.ctx, ch, Element{Kind: ElemBatch, Batch: b}); err != nil {
				return err
			}
		}
		return nil
	}
	return o.hash(b)
}

// hash splits b by the key group of each row's key.
func (o *chanOutput) hash(b arrow.RecordBatch) error {
	defer b.Release()
	n := len(o.outs)
	if o.sels == nil {
		o.sels = make([][]int32, n)
		o.owner = make([]int32, o.maxPar)
		for kg := range o.owner {
			o.owner[kg] = int32(Subtask(kg, o.maxPar, n))
		}
	}
	for i := range o.sels {
		o.sels[i] = o.sels[i][:0]
	}
	if err := o.enc.Reset(b, o.keys); err != nil {
		return err
	}
	rows := int(b.NumRows())
	t := int32(-1)
	for r := 0; r < rows; r++ {
		// Skewed keys (Nexmark's hot bidders, a window without keys) often
		// repeat the previous row's: no hashing then.
		o.key = o.enc.Append(o.key[:0], r)
		if t < 0 || !bytes.Equal(o.key, o.prev) {
			t = o.owner[KeyGroup(o.key, o.maxPar)]
			o.prev, o.key = o.key, o.prev
		}
		o.sels[t] = append(o.sels[t], int32(r))
	}
	for t, sel := range o.sels {
		if len(sel) == 0 {
			continue
		}
		var part arrow.RecordBatch
		if len(sel) == rows {
			b.Retain()
			part = b
		} else {
			part = WithKinds(expr.Take(o.alloc, b, sel), TakeKinds(b, sel))
		}
		if err := send(o.ctx, o.outs[t], Element{Kind: ElemBatch, Batch: part}); err != nil {
			return err
		}
	}
	return nil
}

func (o *chanOutput) watermark(wm int64) error {
	for _, ch := range o.targets() {
		if err := send(o.ctx, ch, Element{Kind: ElemWatermark, Watermark: wm}); err != nil {
			return err
		}
	}
	return nil
}

func (o *chanOutput) barrier(b checkpoint.Barrier) (*checkpoint.SinkState, error) {
	for _, ch := range o.targets() {
		if err := send(o.ctx, ch, Element{Kind: ElemBarrier, Barrier: b}); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func (o *chanOutput) end() error {
	for _, ch := range o.targets() {
		if err := send(o.ctx, ch, Element{Kind: ElemEnd}); err != nil {
			return err
		}
	}
	return nil
}

// targets are the channels control elements go to: every channel this
// subtask can send data on, so no receiver waits for a watermark forever.
func (o *chanOutput) targets() []chan<- Element {
	if o.kind == Forward {
		return o.outs[o.self : o.self+1]
	}
	return o.outs
}

// KeyGroup maps an encoded key to one of maxPar key groups.
func KeyGroup(key []byte, maxPar int) int {
	return int(memseg.Hash(key) % uint64(maxPar))
}

// Subtask returns the subtask of n that owns key group kg, as Flink
// assigns contiguous key-group ranges to subtasks.
func Subtask(kg, maxPar, n int) int {
	return kg * n / maxPar
}

// sinkOutput writes the chain's output to a sink. Its writer is closed
// (made visible) by Run only once every task of the job has succeeded.
type sinkOutput struct {
	w       SinkWriter
	uid     string
	metrics *Metrics
}

func (o *sinkOutput) Emit(b arrow.RecordBatch) error {
	defer b.Release()
	if b.NumRows() == 0 {
		return nil
	}
	if err := o.w.Write(b); err != nil {
		return err
	}
	o.metrics.RowsWritten.Add(b.NumRows())
	return nil
}

func (o *sinkOutput) watermark(wm int64) error {
	if w, ok := o.w.(Watermarker); ok {
		return w.Watermark(wm)
	}
	return nil
}

func (o *sinkOutput) barrier(b checkpoint.Barrier) (*checkpoint.SinkState, error) {
	pc, ok := o.w.(PreCommitter)
	if !ok {
		return nil, nil
	}
	pending, err := pc.PreCommit(b.ID)
	if err != nil {
		return nil, err
	}
	return &checkpoint.SinkState{UID: o.uid, Pending: pending}, nil
}

func (o *sinkOutput) end() error { return nil }
