package exec

import (
	"errors"
	"strings"
	"testing"

	"github.com/strandsql/strand/checkpoint"
)

// TestMatchStateSplitsGone: read positions of a split the job's source no
// longer has (a file gone, a generator with fewer splits) cannot be
// mapped, so the start is refused, naming the split; those of the splits
// it still has are restored.
func TestMatchStateSplitsGone(t *testing.T) {
	g := spGraph(&memSource{batch: 10, splits: spRows(10)}, &memSink{}, 2, nil)
	md := &checkpoint.Metadata{ID: 4, Sources: []checkpoint.SourceState{{UID: "source-t", Splits: []checkpoint.SplitState{
		{ID: "split-0", Pos: 3}, {ID: "split-2", Pos: 5},
	}}}}
	m := MatchState(g, md)
	err := m.Err()
	if !errors.Is(err, ErrUnmapped) || !strings.Contains(err.Error(), "source-t") || !strings.Contains(err.Error(), "split-2") {
		t.Fatalf("err = %v, want the gone split named", err)
	}
	cp := &Checkpointing{Restore: md}
	if got := restoredSplits(cp, m, "source-t"); got["split-0"].Pos != 3 {
		t.Fatalf("restored splits %v, want split-0's", got)
	}
	md.Sources[0].Splits = md.Sources[0].Splits[:1]
	if err := MatchState(g, md).Err(); err != nil {
		t.Fatalf("a split the source has: %v", err)
	}
}
