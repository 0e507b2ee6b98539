package exec

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/state"
)

// StateTTL is the state time-to-live of a keyed operator outside windows
// (table.exec.state.ttl, or a STATE_TTL hint), and the clock it runs on:
// TimeCol is the input's rowtime column, whose values are the event times
// entries are stamped with and checked against, or -1 for processing time
// (the task's clock).
type StateTTL struct {
	TTL     state.TTL
	TimeCol int
}

// String is the TTL as EXPLAIN shows it.
func (t StateTTL) String() string {
	clock := "proctime"
	if t.TimeCol >= 0 {
		clock = "rowtime"
	}
	return fmt.Sprintf("%s %s", time.Duration(t.TTL.Millis)*time.Millisecond, clock)
}

// TTLClock gives an operator the times its TTL'd state is stamped with,
// checked against and swept at: by event time, each row's own rowtime,
// and the input's watermark for sweeps; by processing time the task's
// clock, read once per batch. A row reaches a stateful operator only at
// or after the watermark (late rows are dropped at the sources), so a
// sweep at the watermark deletes only entries every later row would find
// expired anyway: by event time, when sweeps run changes no result, and
// the results are those of the input alone.
type TTLClock struct {
	StateTTL
	now   func() int64
	wm    int64
	times *array.Timestamp
	div   int64 // the time column's units per millisecond, or
	mul   int64 // milliseconds per unit
	batch int64 // processing time at the batch
}

// Open takes the task's clock.
func (c *TTLClock) Open(ctx *TaskContext) {
	c.now, c.wm = ctx.Now, -1<<63
	if c.now == nil {
		c.now = func() int64 { return time.Now().UnixMilli() }
	}
}

// Bind reads the times of a batch's rows.
func (c *TTLClock) Bind(b arrow.RecordBatch) error {
	c.times = nil
	if !c.TTL.On() {
		return nil
	}
	if c.TimeCol < 0 {
		c.batch = c.now()
		return nil
	}
	ts, ok := b.Column(c.TimeCol).(*array.Timestamp)
	if !ok {
		return fmt.Errorf("state TTL: time column is %s", b.Column(c.TimeCol).DataType())
	}
	c.times = ts
	c.div, c.mul = 1, 1
	if m := ts.DataType().(*arrow.TimestampType).Unit.Multiplier(); m < time.Millisecond {
		c.div = int64(time.Millisecond / m)
	} else {
		c.mul = int64(m / time.Millisecond)
	}
	return nil
}

// At is the time of row r of the bound batch: its rowtime (the watermark
// for a NULL one), or the batch's processing time.
func (c *TTLClock) At(r int) int64 {
	if c.times == nil {
		return c.batch
	}
	if !c.times.IsValid(r) {
		return c.wm
	}
	return int64(c.times.Value(r)) * c.mul / c.div
}

// Watermark records the input's watermark and reports whether a sweep is
// due: by event time whenever the watermark advances.
func (c *TTLClock) Watermark(wm int64) bool {
	if wm <= c.wm {
		return false
	}
	c.wm = wm
	return c.TTL.On() && c.TimeCol >= 0
}

// SweepTime is the time a sweep deletes entries expired at: the
// watermark, or processing time.
func (c *TTLClock) SweepTime() int64 {
	if c.TimeCol >= 0 {
		return c.wm
	}
	return c.now()
}
