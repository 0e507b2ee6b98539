package window

import (
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/types"
)

// TestCorrupt: the refusal of state of an unknown name and of malformed
// window progress are Corrupt, also wrapped; other errors are not.
func TestCorrupt(t *testing.T) {
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
		if !Corrupt(err) || !Corrupt(fmt.Errorf("restoring: %w", err)) {
			t.Errorf("Load(%q, %x, %x): %v, want an error Corrupt reports", e.name, e.key, e.value, err)
		}
	}
	if Corrupt(errors.New("window: malformed checkpointed state")) || Corrupt(nil) {
		t.Error("Corrupt reports an error that does not wrap the window's refusal")
	}
}
