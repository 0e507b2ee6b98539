package window

import "github.com/strandsql/strand/types"

// Tumble assigns rows to fixed-size, non-overlapping windows.
type Tumble struct {
	Size   int64 // milliseconds, > 0
	Offset int64 // milliseconds
}

// Start returns the start of the window holding ts.
func (t Tumble) Start(ts int64) int64 {
	return ts - floorMod(ts-t.Offset, t.Size)
}

// Fires returns the watermark at which the window holding ts fires: its
// last millisecond.
func (t Tumble) Fires(ts int64) int64 {
	return t.Start(ts) + t.Size - 1
}

func floorMod(a, b int64) int64 {
	return a - types.FloorDiv(a, b)*b
}
