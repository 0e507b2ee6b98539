package exec

import (
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
)

// TestJobCheckpoints checks that a job reports its checkpoints through
// its handle, the latest one's id and time included, as SHOW JOBS and the
// HTTP API show them.
func TestJobCheckpoints(t *testing.T) {
	fs := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(fs, "cp")
	if err != nil {
		t.Fatal(err)
	}
	src := &memSource{batch: 2, splits: [][][2]int64{{{1, 1}, {2, 2}, {12, 1}}, {{5, 1}, {15, 2}}}}
	cp := &Checkpointing{FS: fs, WorkDir: "work", Storage: storage, Job: "j", FirstID: 7}
	j, err := Start(context.Background(), countGraph(src, &memSink{}, 2), Options{Metrics: &Metrics{}, Checkpoint: cp})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Wait(); err != nil {
		t.Fatal(err)
	}
	s := j.Checkpoints()
	if s.Completed != 1 || s.Failed != 0 || s.LastID != 7 || s.Last.IsZero() {
		t.Fatalf("checkpoints of a job whose only checkpoint is its final one (7): %+v", s)
	}
	if s.Last.After(j.Started.Add(time.Minute)) || s.Last.Before(j.Started.Add(-time.Second)) {
		t.Errorf("last checkpoint at %s, job started at %s", s.Last, j.Started)
	}
	if s := (&Job{}).Checkpoints(); s != (CheckpointStats{}) {
		t.Errorf("a job without checkpoints reports %+v", s)
	}
}
