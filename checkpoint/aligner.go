package checkpoint

// Aligner tracks barriers across the input channels of one task.
//
// In exactly-once mode a channel that has delivered barrier N is blocked
// (the task stops reading it) until every live channel has delivered N, so
// the snapshot holds exactly the rows before the barrier on every channel.
// In at-least-once mode nothing is blocked: rows after the barrier on a
// fast channel may be processed before the snapshot, and are replayed
// after a restore (duplicates, never losses).
//
// A savepoint's barrier is always aligned, whatever the mode: a savepoint
// is a consistent cut that a changed job may resume from.
//
// A channel that has ended counts as having delivered every barrier. One
// checkpoint is aligned at a time: the coordinator triggers checkpoint N+1
// only after N completed or was abandoned, so a channel never delivers N+1
// while N is being aligned, except after N was abandoned, which Aligner
// handles by starting over with the newer barrier.
type Aligner struct {
	exactlyOnce bool
	ended       []bool
	blocked     []bool
	arrived     int
	current     int64 // barrier being aligned; 0 when none
	kind        Kind  // the current barrier's kind
	last        int64 // highest barrier completed
}

// NewAligner returns an aligner for n channels.
func NewAligner(n int, exactlyOnce bool) *Aligner {
	return &Aligner{exactlyOnce: exactlyOnce, ended: make([]bool, n), blocked: make([]bool, n)}
}

// Barrier records that channel ch delivered barrier id. It reports whether
// the barrier is now aligned on every live channel: the caller snapshots,
// forwards the barrier, and calls Done.
func (a *Aligner) Barrier(ch int, b Barrier) (aligned bool) {
	id := b.ID
	if id <= a.last || (a.current != 0 && id < a.current) {
		// A barrier of a checkpoint this task already took, or of one
		// abandoned for a newer one: the channel is not blocked for it.
		return false
	}
	if id > a.current {
		a.reset()
		a.current, a.kind = id, b.Kind
	}
	if !a.blocked[ch] {
		a.blocked[ch] = true
		a.arrived++
	}
	return a.complete()
}

// End records that channel ch has ended. It reports whether that completes
// the alignment in progress.
func (a *Aligner) End(ch int) (aligned bool) {
	a.ended[ch] = true
	if a.blocked[ch] {
		a.blocked[ch] = false
		a.arrived--
	}
	return a.current != 0 && a.complete()
}

func (a *Aligner) complete() bool {
	live := 0
	for _, e := range a.ended {
		if !e {
			live++
		}
	}
	return a.arrived >= live
}

// Done ends the alignment of the current barrier and unblocks every
// channel. It returns the barrier.
func (a *Aligner) Done() Barrier {
	b := Barrier{ID: a.current, Kind: a.kind}
	a.last = b.ID
	a.reset()
	return b
}

func (a *Aligner) reset() {
	clear(a.blocked)
	a.arrived = 0
	a.current, a.kind = 0, Periodic
}

// Blocked reports whether the task must not read channel ch now.
func (a *Aligner) Blocked(ch int) bool {
	return (a.exactlyOnce || a.kind == Savepoint) && a.blocked[ch]
}
