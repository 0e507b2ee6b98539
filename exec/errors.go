package exec

import "errors"

// Error kinds a caller can test with errors.Is. Expression errors (a
// division by zero, a failed CAST) wrap expr.ErrRuntime.
var (
	// ErrBadRow marks a malformed input row; the message names the file,
	// line and column.
	ErrBadRow = errors.New("bad row")
	// ErrCanceled is returned by a job stopped by its context.
	ErrCanceled = errors.New("job canceled")
)
