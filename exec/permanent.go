package exec

import (
	"errors"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/window"
)

// ErrPermanent marks a failure that no restart of the job can cure: the
// same restore point, restored again, fails again. A restart strategy
// tests for it with errors.Is and fails the job at once instead of
// retrying. Errors are marked with Permanent; the restore marks its
// refusals (refused).
var ErrPermanent = errors.New("permanent failure")

// Permanent returns err marked permanent (errors.Is(err, ErrPermanent)),
// with err's message unchanged and err still in its chain; nil for nil.
func Permanent(err error) error {
	if err == nil || errors.Is(err, ErrPermanent) {
		return err
	}
	return permanentError{err}
}

type permanentError struct{ err error }

func (p permanentError) Error() string   { return p.err.Error() }
func (p permanentError) Unwrap() []error { return []error{p.err, ErrPermanent} }

// refused marks err permanent when it is a refusal of restored state by
// design, which a restart from the same restore point meets again:
// state of a later strand (agg.ErrLaterFormat), state its reader finds
// malformed although its file's checksum verified (agg.ErrCorrupt,
// memseg.ErrCorrupt, window.ErrCorrupt), state that does not fit the job
// (ErrIncompatible, ErrUnmapped). A corrupt file (state.ErrCorrupt) is
// permanent in a savepoint, which a restart restores again; in a
// checkpoint it is not, as a restart verifies the checkpoint anew and
// falls back to an older one if this one is corrupt (checkpoint.Storage.
// Latest). Any other error, an I/O error above all, is left as it is.
func refused(err error, savepoint bool) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, agg.ErrLaterFormat), errors.Is(err, agg.ErrCorrupt), errors.Is(err, memseg.ErrCorrupt),
		errors.Is(err, window.ErrCorrupt), errors.Is(err, ErrIncompatible), errors.Is(err, ErrUnmapped),
		savepoint && (errors.Is(err, state.ErrCorrupt) || errors.Is(err, checkpoint.ErrSavepoint)):
		return Permanent(err)
	}
	return err
}

// laterFormat marks err permanent when it wraps agg.ErrLaterFormat,
// wherever the task met it: an operator that restores its state as raw
// entries (RestoreKeyed) decodes them only as it reads them, and state of
// a later strand can only have come from the restore point, which every
// restart restores again.
func laterFormat(err error) error {
	if errors.Is(err, agg.ErrLaterFormat) {
		return Permanent(err)
	}
	return err
}
