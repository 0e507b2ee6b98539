package connector

import (
	"slices"
	"sync/atomic"
	"testing"

	"github.com/strandsql/strand/exec"
	"github.com/twmb/franz-go/pkg/kerr"
)

// TestKafkaSinkFenceSparesPreCommitted: the fence of a failed Close or an
// Abort hits only the writer's open transaction (<prefix>-<s>-<after>),
// never one it pre-committed at a barrier, which stays the checkpoint's
// to commit: after either, committing checkpoint 1 shows its rows.
func TestKafkaSinkFenceSparesPreCommitted(t *testing.T) {
	for _, closing := range []bool{false, true} {
		name := "abort"
		if closing {
			name = "failed close"
		}
		t.Run(name, func(t *testing.T) {
			c, sk, addr := eosSink(t)
			w := must(sk.Open(kSchema, 0, 1))
			writeIDs(t, w, 1, 2)
			p1 := must(w.(exec.PreCommitter).PreCommit(1))
			writeIDs(t, w, 3) // transaction tx-0-1
			var failing atomic.Bool
			failing.Store(true)
			failEndTxn(c, &failing, kerr.InvalidTxnState.Code)
			if closing {
				if err := w.Close(); err == nil {
					t.Fatal("Close succeeded")
				}
			}
			if err := w.Abort(); err != nil {
				t.Fatal(err)
			}
			failing.Store(false)
			if err := sk.(exec.Committer).Commit(p1); err != nil {
				t.Fatalf("committing checkpoint 1 after the fence: %v", err)
			}
			want := []string{`{"id":1,"name":"n1"}`, `{"id":2,"name":"n2"}`}
			if got := consume(t, addr, "out", true); !slices.Equal(got, want) {
				t.Fatalf("read_committed sees %v, want %v", got, want)
			}
		})
	}
}
