package connector

import (
	"fmt"
	"os"
	"sync"
)

// fileSyncer syncs and closes a writer's finished part files in the
// background. A file rolled over (on size, age, a barrier or the end of
// the input) is written out already; what is left is the fsync, which
// waits for the disk (a 128 MB file took 0.1 to 1 s on the benchmark
// machine) and would stall the task that encodes the output, and with it
// the window aggregate chained before it and, through the full channels,
// the sources. A file is made visible or handed to a checkpoint only
// after wait: it is durable by then, as when the task synced it itself.
type fileSyncer struct {
	wg  sync.WaitGroup
	mu  sync.Mutex
	err error // the first failure, kept: the output is not durable
}

// start syncs and closes f in the background.
func (s *fileSyncer) start(f *os.File) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		err := f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			s.mu.Lock()
			if s.err == nil {
				s.err = fmt.Errorf("filesystem sink: %s: %w", f.Name(), err)
			}
			s.mu.Unlock()
		}
	}()
}

// failed returns the first error of the syncs done so far, without
// waiting for those still running.
func (s *fileSyncer) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// wait returns once every file started is synced and closed, with the
// first error any of them had, now or before.
func (s *fileSyncer) wait() error {
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
