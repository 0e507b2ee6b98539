package connector

import (
	"bufio"
	"io"
	"sync"
)

// A subtask reads a large file's byte ranges one after another, opening
// each (and peeking at each when it starts: exec.ReadOptions.Peek), so a
// fresh read buffer per range would be 84 fresh 256 KiB buffers for a
// 671 MB file: pages the kernel faults in and zeroes during read(2),
// about a fifth of a parallelism-2 run's page faults, and a buffer that
// is not in the cache when read(2) copies into it. A reader's buffer goes
// back to a pool of its size when the reader closes, and the next range
// opened takes it, still warm. Only the fixed sizes are pooled; a small
// file's buffer is sized to the file.
var readerPools = map[int]*sync.Pool{
	peekBuffer:  newReaderPool(peekBuffer),
	rangeBuffer: newReaderPool(rangeBuffer),
	fileBuffer:  newReaderPool(fileBuffer),
}

func newReaderPool(size int) *sync.Pool {
	return &sync.Pool{New: func() any { return bufio.NewReaderSize(nil, size) }}
}

// newReader returns a reader of rd with a buffer of size bytes, and the
// pool to give it back to once rd is closed (bufio.Reader.Reset(nil)
// first, so that the pool holds no file), or nil if size is not pooled.
func newReader(rd io.Reader, size int) (*bufio.Reader, *sync.Pool) {
	pool := readerPools[size]
	if pool == nil {
		return bufio.NewReaderSize(rd, size), nil
	}
	br := pool.Get().(*bufio.Reader)
	br.Reset(rd)
	return br, pool
}
