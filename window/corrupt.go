package window

import "errors"

// Corrupt reports whether err is, or wraps, the refusal of checkpointed
// or spilled window state that does not decode (a restore that meets it
// meets it again on every restart from the same state).
func Corrupt(err error) bool { return errors.Is(err, errState) }
