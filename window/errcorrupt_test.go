package window

import (
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/types"
)

// TestErrCorrupt: the refusal of state of an unknown name and of
// malformed window progress wrap ErrCorrupt, also wrapped again; other
// errors do not.
func TestErrCorrupt(t *testing.T) {
	a, err := New(Spec{Window: TumbleOf(10, 0), In: tkSchema, TimeCol: 0, Keys: []int{1},
		Aggs: []agg.Call{{Kind: agg.Count, Arg: 2, Filter: -1, Out: types.TBigInt}}}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		name       string
		key, value []byte
	}{{"no such state", []byte{1}, nil}, {progressState, progressKey, []byte{0x80}}} {
		err := a.Load(0, e.name, e.key, e.value)
		if !errors.Is(err, ErrCorrupt) || !errors.Is(fmt.Errorf("restoring: %w", err), ErrCorrupt) {
			t.Errorf("Load(%q, %x, %x): %v, want one wrapping ErrCorrupt", e.name, e.key, e.value, err)
		}
	}
	if errors.Is(errors.New("window: malformed checkpointed state"), ErrCorrupt) || errors.Is(nil, ErrCorrupt) {
		t.Error("an error that does not wrap the window's refusal is ErrCorrupt")
	}
}
