package session

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

// storeDuration is how long an ended operation's outcome is kept to be
// fetched, Flink's rest.async.store-duration: a server that runs for
// months does not keep every request it ever answered.
const storeDuration = 5 * time.Minute

// operations are the savepoints and stops asked for over HTTP, by request
// id: each runs on its own goroutine, and its outcome stays to be fetched
// for storeDuration after it ended.
type operations struct {
	mu sync.Mutex
	m  map[string]*operation
	// now is the clock that ages ended operations (time.Now when nil).
	now func() time.Time
	// change is closed and replaced whenever an operation ends or its
	// outcome is fetched.
	change chan struct{}
}

type operation struct {
	job  string
	done bool
	// ended is when done was set.
	ended time.Time
	// fetched is set once a client has read the outcome.
	fetched  bool
	location string
	err      error
	ops      *operations
}

// start runs fn, a savepoint or stop of job, and returns its request id.
func (ops *operations) start(job string, fn func() (string, error)) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	op := &operation{job: job, ops: ops}
	ops.mu.Lock()
	ops.prune()
	ops.m[id] = op
	ops.mu.Unlock()
	go func() {
		path, err := fn()
		ops.mu.Lock()
		op.done, op.ended, op.location, op.err = true, ops.clock(), path, err
		ops.changed()
		ops.mu.Unlock()
	}()
	return id
}

// prune forgets the operations that ended more than storeDuration ago;
// ops.mu is held.
func (ops *operations) prune() {
	now := ops.clock()
	for id, op := range ops.m {
		if op.done && now.Sub(op.ended) > storeDuration {
			delete(ops.m, id)
		}
	}
}

func (ops *operations) clock() time.Time {
	if ops.now != nil {
		return ops.now()
	}
	return time.Now()
}

// changed wakes settled; ops.mu is held.
func (ops *operations) changed() {
	if ops.change != nil {
		close(ops.change)
		ops.change = nil
	}
}

func (ops *operations) get(id string) *operation {
	ops.mu.Lock()
	defer ops.mu.Unlock()
	return ops.m[id]
}

// status renders the operation's state, marking a final one fetched.
func (op *operation) status() OperationStatus {
	op.ops.mu.Lock()
	defer op.ops.mu.Unlock()
	var st OperationStatus
	if !op.done {
		st.Status.ID = "IN_PROGRESS"
		return st
	}
	st.Status.ID = "COMPLETED"
	st.Operation = &Outcome{Location: op.location}
	if op.err != nil {
		st.Operation = &Outcome{Failure: &Failure{Message: op.err.Error()}}
	}
	op.fetched = true
	op.ops.changed()
	return st
}

// settled waits until every operation has ended and its outcome been
// fetched, or grace has passed.
func (ops *operations) settled(grace time.Duration) {
	deadline := time.After(grace)
	for {
		ops.mu.Lock()
		pending := false
		for _, op := range ops.m {
			pending = pending || !op.done || !op.fetched
		}
		if !pending {
			ops.mu.Unlock()
			return
		}
		if ops.change == nil {
			ops.change = make(chan struct{})
		}
		ch := ops.change
		ops.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			return
		}
	}
}
