package session

import (
	"testing"
	"time"
)

// TestOperationsPruned checks that an ended request's outcome can be
// fetched for storeDuration and is forgotten after it, so that the map of
// requests does not grow for the life of the server.
func TestOperationsPruned(t *testing.T) {
	now := time.Unix(1000, 0)
	ops := &operations{m: map[string]*operation{}, now: func() time.Time { return now }}
	release := make(chan struct{})
	ended := ops.start("job", func() (string, error) { return "/sp", nil })
	running := ops.start("job", func() (string, error) { <-release; return "", nil })
	defer close(release)
	for deadline := time.Now().Add(10 * time.Second); ; {
		ops.mu.Lock()
		done := ops.m[ended].done
		ops.mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the operation did not end")
		}
		time.Sleep(time.Millisecond)
	}
	now = now.Add(storeDuration)
	ops.start("job", func() (string, error) { return "", nil })
	if op := ops.get(ended); op == nil || op.status().Operation.Location != "/sp" {
		t.Fatalf("an outcome %v old is gone", storeDuration)
	}
	now = now.Add(time.Second)
	ops.start("job", func() (string, error) { return "", nil })
	if ops.get(ended) != nil {
		t.Errorf("an outcome older than %v is kept", storeDuration)
	}
	if ops.get(running) == nil {
		t.Error("a running operation was forgotten")
	}
}
