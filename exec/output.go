package exec

import (
	"bytes"
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// output is the end of a subtask's chain: it distributes batches and
// control elements to the next vertex's subtasks, or writes to a sink.
type output interface {
	Emitter
	watermark(wm int64) error
	// idle tells the readers that this subtask's input is idle
	// (table.exec.source.idle-timeout): they leave it out of their
	// watermark until it sends a batch or a watermark again.
	idle() error
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
	hasher KeyHasher
	parts  []*Part // per downstream subtask: its share of the batch
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

// hash splits b by the key group of each row's key. A receiver that gets
// every row of b gets b itself; each other receiver gets b with a Part
// naming its rows. Either way each element carries its rows' key hashes
// (Part.Hashes), except when there is one receiver, which gets b as it
// is: with nothing to route, nothing is hashed.
func (o *chanOutput) hash(b arrow.RecordBatch) error {
	n := len(o.outs)
	if n == 1 {
		return send(o.ctx, o.outs[0], Element{Kind: ElemBatch, Batch: b})
	}
	if o.parts == nil {
		o.parts = make([]*Part, n)
		o.owner = make([]int32, o.maxPar)
		for kg := range o.owner {
			o.owner[kg] = int32(Subtask(kg, o.maxPar, n))
		}
	}
	if len(o.keys) == 0 {
		// Every row has the empty key, so one key group.
		return send(o.ctx, o.outs[o.owner[KeyGroup(nil, o.maxPar)]], Element{Kind: ElemBatch, Batch: b})
	}
	defer b.Release()
	rows := int(b.NumRows())
	o.hasher.Keys = o.keys
	hashes, err := o.hasher.Hashes(b, rows)
	if err != nil {
		return err
	}
	// Every receiver's Part has room for every row, so the loop below
	// appends without growing; a receiver that got no row gets none.
	for i := range o.parts {
		p := newPart(o.keys)
		p.Rows, p.Hashes = slices.Grow(p.Rows, rows), slices.Grow(p.Hashes, rows)
		o.parts[i] = p
	}
	if maxPar := uint64(o.maxPar); maxPar&(maxPar-1) == 0 {
		// A power of two (the default, 128): a mask, not a division per row.
		for r, h := range hashes {
			p := o.parts[o.owner[h&(maxPar-1)]]
			p.Rows = append(p.Rows, int32(r))
			p.Hashes = append(p.Hashes, h)
		}
	} else {
		for r, h := range hashes {
			p := o.parts[o.owner[h%maxPar]]
			p.Rows = append(p.Rows, int32(r))
			p.Hashes = append(p.Hashes, h)
		}
	}
	shared := 0
	for i, p := range o.parts {
		if len(p.Hashes) == 0 {
			p.Free()
			o.parts[i] = nil
			continue
		}
		shared++
	}
	if shared > 1 {
		settleNulls(b.Columns())
	}
	for t, p := range o.parts {
		if p == nil {
			continue
		}
		if len(p.Rows) == rows {
			p.Rows = nil
		}
		b.Retain()
		if err := send(o.ctx, o.outs[t], Element{Kind: ElemBatch, Batch: b, Part: p}); err != nil {
			for _, q := range o.parts[t+1:] {
				if q != nil {
					q.Free()
				}
			}
			return err
		}
	}
	return nil
}

// settleNulls has Arrow count the NULLs of cols and their children. An
// array counts them on first use and caches the count in itself, a
// write: receivers sharing a batch read it in their goroutines at once
// and would race to do that for a batch cut from another (NewSlice, as
// Expand's are), whose counts are not known yet.
func settleNulls(cols []arrow.Array) {
	for _, c := range cols {
		c.NullN()
		switch c := c.(type) {
		case *array.Struct:
			for i := range c.NumField() {
				settleNulls([]arrow.Array{c.Field(i)})
			}
		case array.ListLike:
			settleNulls([]arrow.Array{c.ListValues()})
		}
	}
}

// KeyHasher hashes the key columns of a batch's rows as a hash exchange
// does, so that a row's key group (hash % max parallelism) is the same
// wherever it is computed: in an exchange, or in the writer of a
// repartition topic that routes rows to the member owning their key group.
type KeyHasher struct {
	// Keys are the key columns.
	Keys   []int
	enc    memseg.KeyEncoder
	key    []byte
	prev   []byte // the previous row's key
	hashes []uint64
	wide   []int64
}

// Hashes returns the key hash of each of b's first rows rows, in a slice
// reused by the next call: for one integer-like key column,
// memseg.HashInt64 of each value; else memseg.Hash of each row's
// normalized key, the previous row's hash again when its key is the same
// (skewed keys, such as Nexmark's hot bidders, often repeat).
func (h *KeyHasher) Hashes(b arrow.RecordBatch, rows int) ([]uint64, error) {
	hs := slices.Grow(h.hashes[:0], rows)[:rows]
	h.hashes = hs
	if len(h.Keys) == 1 {
		if vals, ok := memseg.IntValues(b.Column(h.Keys[0]), &h.wide); ok {
			col := b.Column(h.Keys[0])
			for r := range hs {
				hs[r] = memseg.HashInt64(vals[r])
			}
			if col.NullN() > 0 {
				null := memseg.Hash(memseg.AppendNull(nil, memseg.Order{}))
				for r := range hs {
					if col.IsNull(r) {
						hs[r] = null
					}
				}
			}
			return hs, nil
		}
	}
	if err := h.enc.Reset(b, h.Keys); err != nil {
		return nil, err
	}
	var v uint64
	for r := range hs {
		h.key = h.enc.Append(h.key[:0], r)
		if r == 0 || !bytes.Equal(h.key, h.prev) {
			v = memseg.Hash(h.key)
			h.prev, h.key = h.key, h.prev
		}
		hs[r] = v
	}
	return hs, nil
}

func (o *chanOutput) watermark(wm int64) error {
	for _, ch := range o.targets() {
		if err := send(o.ctx, ch, Element{Kind: ElemWatermark, Watermark: wm}); err != nil {
			return err
		}
	}
	return nil
}

func (o *chanOutput) idle() error {
	for _, ch := range o.targets() {
		if err := send(o.ctx, ch, Element{Kind: ElemWatermark, Watermark: types.MinWatermark, Idle: true}); err != nil {
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

func (o *sinkOutput) idle() error { return nil }

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

func (o *sinkOutput) end() error {
	if e, ok := o.w.(EndAware); ok {
		return e.InputEnded()
	}
	return nil
}
