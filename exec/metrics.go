package exec

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Metrics are a job's counters, shared by all its tasks. They are updated
// once per batch, not per row.
type Metrics struct {
	RowsRead    atomic.Int64
	RowsWritten atomic.Int64
	LateRows    atomic.Int64 // dropped because their window had fired
	BadRows     atomic.Int64 // skipped malformed rows (ignore-parse-errors)
	Checkpoints atomic.Int64 // completed checkpoints
	Failed      atomic.Int64 // failed checkpoints
	Spills      atomic.Int64 // windows spilled to the state store for want of memory
	// BytesRead and BytesTotal are the bytes read and held by the splits
	// of sized sources (files), counted as each subtask opens its splits:
	// how far a bounded input has been read.
	BytesRead  atomic.Int64
	BytesTotal atomic.Int64
}

// Summary renders the counters for the end-of-job line.
func (m *Metrics) Summary(elapsed time.Duration) string {
	s := fmt.Sprintf("rows read %d, rows written %d, late rows dropped %d, bad rows skipped %d",
		m.RowsRead.Load(), m.RowsWritten.Load(), m.LateRows.Load(), m.BadRows.Load())
	if n := m.Spills.Load(); n > 0 {
		s += fmt.Sprintf(", windows spilled %d", n)
	}
	if c, f := m.Checkpoints.Load(), m.Failed.Load(); c+f > 0 {
		s += fmt.Sprintf(", checkpoints %d (failed %d)", c, f)
	}
	return s + fmt.Sprintf(", elapsed %s", elapsed.Round(time.Millisecond))
}
