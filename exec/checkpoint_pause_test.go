package exec

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestCheckpointMinPause checkpoints every 5 ms with a 60 ms minimum
// pause: each periodic checkpoint starts at least the pause after the end
// of the one before it, as Flink's execution.checkpointing.min-pause
// says, not at the next tick.
func TestCheckpointMinPause(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const pause = 60 * time.Millisecond
	cp := spCheckpointing(t)
	cp.Interval, cp.MinPause = 5*time.Millisecond, pause
	j, err := Start(ctx, spGraph(&pacedSource{memSource{batch: 10, splits: spRows(20000)}, time.Millisecond}, &memSink{}, 2, nil), Options{Checkpoint: cp})
	if err != nil {
		t.Fatal(err)
	}
	for j.Checkpoints().Completed < 4 {
		time.Sleep(5 * time.Millisecond)
	}
	h := j.CheckpointHistory()
	j.Cancel()
	_ = j.Wait()
	slices.Reverse(h)
	for i := 1; i < len(h); i++ {
		prev, r := h[i-1], h[i]
		if prev.Status == InProgress || r.Savepoint {
			continue
		}
		if gap := r.Trigger.Sub(prev.Trigger.Add(prev.Duration)); gap < pause {
			t.Errorf("checkpoint %d started %v after %d ended, want at least %v", r.ID, gap, prev.ID, pause)
		}
	}
}

// TestCheckpointMinPauseSavepoint: a savepoint, and the final checkpoint
// of the ended input, do not wait for the minimum pause after the
// checkpoint before them, as in Flink.
func TestCheckpointMinPauseSavepoint(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cp := spCheckpointing(t)
	cp.Interval, cp.MinPause = 5*time.Millisecond, time.Hour
	j, err := Start(ctx, spGraph(&pacedSource{memSource{batch: 10, splits: spRows(2000)}, time.Millisecond}, &memSink{}, 2, nil), Options{Checkpoint: cp})
	if err != nil {
		t.Fatal(err)
	}
	for j.Checkpoints().Completed < 1 {
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	if _, err := j.Savepoint(ctx, t.TempDir()); err != nil {
		t.Fatalf("savepoint: %v", err)
	}
	if err := j.Wait(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("savepoint and final checkpoint took %v", took)
	}
	// Savepoints are not counted among the checkpoints.
	if n := j.Checkpoints().Completed; n != 2 {
		t.Fatalf("%d checkpoints completed, want the first and the final one", n)
	}
}
