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
	// LastCheckpoint is the run's checkpoint counts and latest completed
	// checkpoint once the run has ended; nil before, or without checkpoints.
	LastCheckpoint atomic.Pointer[CheckpointStats]
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
		if l := m.LastCheckpoint.Load(); l != nil && l.LastID > 0 {
			s += fmt.Sprintf(", last checkpoint %s, %s written, state %s", l.LastDuration.Round(time.Millisecond), Bytes(l.LastWritten), Bytes(l.LastSize))
		}
	}
	return s + fmt.Sprintf(", elapsed %s", elapsed.Round(time.Millisecond))
}

// Bytes renders a byte count for a person: 512 B, 1.5 KiB, 20.0 MiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for ; v >= unit && i < 4; i++ {
		v /= unit
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}
