package window

import (
	"fmt"

	"github.com/strandsql/strand/types"
)

// Kind is a kind of window.
type Kind uint8

// The fixed windows: every row maps to windows that depend on its time
// alone, unlike a session's.
const (
	// Tumble windows of Size do not overlap: [k·Size, (k+1)·Size).
	Tumble Kind = iota
	// Hop windows of Size start every Slide: a row is in Size/Slide of
	// them. Slide divides Size, as Flink's slicing requires.
	Hop
	// Cumulate windows start every Size and grow by Slide (Flink's step)
	// until they are Size long: [k·Size, k·Size + j·Slide) for j = 1 ..
	// Size/Slide. Slide divides Size.
	Cumulate
	// Session windows are not fixed: they merge per key (session.go).
	// Size is the gap; an Assigner of this kind only names the window
	// and its lateness rule (Fires).
	Session
)

func (k Kind) String() string { return [...]string{"TUMBLE", "HOP", "CUMULATE", "SESSION"}[k] }

// Assigner maps event times to fixed windows, all aligned to the epoch
// plus Offset. Windows are cut into slices (as Flink's slice-shared window
// aggregation does): a row updates the one slice holding its time, and a
// window fires by merging the slices it covers, so that the cost of a row
// does not grow with Size/Slide. A tumbling window is one slice; the
// slices of hopping and cumulating windows are Slide long.
type Assigner struct {
	Kind Kind
	// Size is the window length (CUMULATE's largest) in milliseconds, > 0.
	Size int64
	// Slide is HOP's slide or CUMULATE's step in milliseconds, > 0; for
	// TUMBLE it is Size (or 0, read as Size).
	Slide  int64
	Offset int64
}

// TumbleOf returns the tumbling assigner of windows size long.
func TumbleOf(size, offset int64) Assigner {
	return Assigner{Kind: Tumble, Size: size, Slide: size, Offset: offset}
}

// Check reports an assigner that cannot be: what each kind needs.
func (w Assigner) Check() error {
	switch {
	case w.Size <= 0:
		return fmt.Errorf("window size must be positive, got %d ms", w.Size)
	case w.Kind == Tumble || w.Kind == Session:
		return nil
	case w.Slide <= 0:
		return fmt.Errorf("%v window slide must be positive, got %d ms", w.Kind, w.Slide)
	case w.Size%w.Slide != 0:
		return fmt.Errorf("%v window size must be a multiple of its %s", w.Kind, map[Kind]string{Hop: "slide", Cumulate: "step"}[w.Kind])
	}
	return nil
}

// step is the distance between two window ends: windows end at Offset +
// k·step.
func (w Assigner) step() int64 {
	if w.Kind == Tumble || w.Slide <= 0 {
		return w.Size
	}
	return w.Slide
}

// SliceSize is the length of a slice.
func (w Assigner) SliceSize() int64 { return w.step() }

// Start returns the start of the window holding ts for a tumbling
// assigner, the slice holding ts for the others.
func (w Assigner) Start(ts int64) int64 { return align(ts, w.SliceSize(), w.Offset) }

// Fires returns the watermark at which the first window holding ts fires:
// its last millisecond. A row is late when this window has fired (see
// the package doc): it then counts in none of its windows.
func (w Assigner) Fires(ts int64) int64 {
	if w.Kind == Session {
		return sessionFires(ts)
	}
	return align(ts, w.step(), w.Offset) + w.step() - 1
}

// Slides reports whether one window is several slices (HOP and
// CUMULATE): firing one then merges them, and a slice outlives a window.
func (w Assigner) Slides() bool { return w.SliceSize() != w.Size }

// firstEnd and lastEnd are the ends of the first and the last window that
// covers the slice starting at s.
func (w Assigner) firstEnd(s int64) int64 {
	return align(s+w.SliceSize()-1, w.step(), w.Offset) + w.step()
}

func (w Assigner) lastEnd(s int64) int64 {
	switch w.Kind {
	case Hop:
		return align(s+w.Size, w.Slide, w.Offset)
	case Cumulate:
		return align(s, w.Size, w.Offset) + w.Size
	}
	return s + w.Size
}

// windowStart is the start of the window ending at end.
func (w Assigner) windowStart(end int64) int64 {
	if w.Kind == Cumulate {
		return align(end-1, w.Size, w.Offset)
	}
	return end - w.Size
}

// align returns the start of the interval of length n, aligned to offset,
// that holds ts.
func align(ts, n, offset int64) int64 {
	return ts - floorMod(ts-offset, n)
}

func floorMod(a, b int64) int64 {
	return a - types.FloorDiv(a, b)*b
}

// Windows calls fn with each window holding ts, in the order of their
// ends: one for TUMBLE, Size/Slide for HOP and CUMULATE.
func (w Assigner) Windows(ts int64, fn func(start, end int64)) {
	s := w.Start(ts)
	for e := w.firstEnd(s); e <= w.lastEnd(s); e += w.step() {
		fn(w.windowStart(e), e)
	}
}
