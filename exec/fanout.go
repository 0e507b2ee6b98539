package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/checkpoint"
)

// outEdge is one edge a vertex's output goes out on: the vertex reading
// it, and the channels from each of this vertex's subtasks to each of its.
type outEdge struct {
	edge  *Edge
	to    *Vertex
	chans [][]chan Element
}

// fanOutput sends a subtask's output to every vertex that reads it, as
// when one source feeds the pipelines of several INSERTs of a statement
// set: each batch goes to each output (shared, one reference each), and
// every watermark, barrier and end as well, in the same order, so each
// pipeline sees the whole stream and aligns on the same barriers.
type fanOutput []output

func (o fanOutput) Emit(b arrow.RecordBatch) error {
	for range len(o) - 1 {
		b.Retain()
	}
	for i, out := range o {
		if err := out.Emit(b); err != nil {
			for range len(o) - 1 - i {
				b.Release() // the references of the outputs not reached
			}
			return err
		}
	}
	return nil
}

func (o fanOutput) watermark(wm int64) error {
	for _, out := range o {
		if err := out.watermark(wm); err != nil {
			return err
		}
	}
	return nil
}

func (o fanOutput) idle() error {
	for _, out := range o {
		if err := out.idle(); err != nil {
			return err
		}
	}
	return nil
}

func (o fanOutput) barrier(b checkpoint.Barrier) (*checkpoint.SinkState, error) {
	for _, out := range o {
		if _, err := out.barrier(b); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func (o fanOutput) end() error {
	for _, out := range o {
		if err := out.end(); err != nil {
			return err
		}
	}
	return nil
}
