package state

import (
	"sync"

	"github.com/cockroachdb/pebble/v2/objstorage"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// bufferedWritable is the objstorage.Writable of an SST that a Store
// writes itself (ingestSST): f written through a large buffer. Pebble's
// own file Writable buffers 4 KiB, so an SST cost a write(2) per block,
// some 250 for the 1 MiB a checkpoint of 1% of a million groups writes;
// this one costs four.
type bufferedWritable struct {
	f   vfs.File
	buf *[]byte
	err error
}

var _ objstorage.Writable = (*bufferedWritable)(nil)

// writeBufs are bufferedWritable's buffers and readBufs checksum's, kept
// between checkpoints.
var (
	writeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256<<10); return &b }}
	readBufs  = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}
)

// newBufferedWritable returns a Writable that writes to f and closes it
// when finished or aborted.
func newBufferedWritable(f vfs.File) *bufferedWritable {
	return &bufferedWritable{f: f, buf: writeBufs.Get().(*[]byte)}
}

// Write implements objstorage.Writable.
func (w *bufferedWritable) Write(p []byte) error {
	for len(p) > 0 && w.err == nil {
		b := *w.buf
		if len(b) == cap(b) {
			w.flush()
			continue
		}
		n := copy(b[len(b):cap(b)], p)
		*w.buf, p = b[:len(b)+n], p[n:]
	}
	return w.err
}

// flush writes the buffer out and empties it.
func (w *bufferedWritable) flush() {
	if len(*w.buf) > 0 && w.err == nil {
		_, w.err = w.f.Write(*w.buf)
	}
	*w.buf = (*w.buf)[:0]
}

// Finish implements objstorage.Writable: it writes out what is buffered,
// syncs and closes the file.
func (w *bufferedWritable) Finish() error {
	w.flush()
	err := w.err
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.release()
	return err
}

// Abort implements objstorage.Writable.
func (w *bufferedWritable) Abort() {
	_ = w.f.Close()
	w.release()
}

func (w *bufferedWritable) release() {
	*w.buf = (*w.buf)[:0]
	writeBufs.Put(w.buf)
	w.buf = nil
}
