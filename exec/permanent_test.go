package exec

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/state"
)

// TestPermanent: a marked error keeps its message and its chain and is
// marked once; refused marks the restore's refusals and leaves I/O errors,
// and a corrupt checkpoint file, which a restart falls back past, alone.
func TestPermanent(t *testing.T) {
	if Permanent(nil) != nil {
		t.Error("Permanent(nil) is not nil")
	}
	base := fmt.Errorf("restoring w: %w", agg.ErrLaterFormat)
	p := Permanent(base)
	if p.Error() != base.Error() || !errors.Is(p, agg.ErrLaterFormat) || !errors.Is(p, ErrPermanent) {
		t.Errorf("Permanent(%v) = %v: message or chain lost", base, p)
	}
	if Permanent(p) != p || !errors.Is(errors.Join(errors.New("other"), p), ErrPermanent) {
		t.Error("a marked error is marked again, or its mark is lost in a join")
	}
	for _, c := range []struct {
		err       error
		savepoint bool
		want      bool
	}{
		{base, false, true},
		{fmt.Errorf("x: %w", agg.ErrCorrupt), false, true},
		{fmt.Errorf("x: %w", ErrIncompatible), false, true},
		{fmt.Errorf("x: %w", state.ErrCorrupt), true, true},
		{fmt.Errorf("x: %w", checkpoint.ErrSavepoint), true, true},
		{fmt.Errorf("x: %w", state.ErrCorrupt), false, false},
		{&fs.PathError{Op: "open", Path: "f", Err: fs.ErrNotExist}, true, false},
		{nil, true, false},
	} {
		if got := errors.Is(refused(c.err, c.savepoint), ErrPermanent); got != c.want {
			t.Errorf("refused(%v, savepoint %v) permanent: %v, want %v", c.err, c.savepoint, got, c.want)
		}
	}
	if !errors.Is(laterFormat(base), ErrPermanent) || errors.Is(laterFormat(fmt.Errorf("x: %w", agg.ErrCorrupt)), ErrPermanent) {
		t.Error("laterFormat marks what it should not, or not what it should")
	}
}
