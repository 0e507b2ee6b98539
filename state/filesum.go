package state

import (
	"hash"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// fileSums are the sizes and CRC32Cs of a Store's SSTs, taken as they are
// written (scratchFS), so that an upload that links an SST into storage
// need not read it back for its checksum (putShared): a checkpoint after
// 1% of a million groups changed read the 1 MiB it had just written, and
// each Pebble compaction's tens of MiB of new tables, only to checksum
// them. An SST is written once, front to back, with Write, and never
// changes after; a file written any other way (WriteAt, or opened again
// for writing, through any of its names) gets no sum, and is read as
// before.
//
// A sum belongs to a file, not to a name: every hard link to a file
// shares its fileEntry, a rename moves it, and a file opened for writing
// through one name spoils it for all of them.
type fileSums struct {
	mu   sync.Mutex
	sums map[string]*fileEntry // by path on the Store's file system
}

// fileSum is the size and CRC32C of a file's bytes.
type fileSum struct {
	size int64
	crc  uint32
}

// fileEntry is the sum of one file, shared by its names. Guarded by
// fileSums.mu.
type fileEntry struct {
	sum fileSum
	// done is set when the file's writer closed it, every write a Write;
	// spoiled when the file may have been written otherwise, after which
	// it never has a sum.
	done, spoiled bool
}

func newFileSums() *fileSums { return &fileSums{sums: map[string]*fileEntry{}} }

// summed reports whether name is a file whose sum is taken: an SST.
func summed(name string) bool { return strings.HasSuffix(name, ".sst") }

// get returns the sum of the file at path, if it was taken.
func (s *fileSums) get(path string) (fileSum, bool) {
	if s == nil {
		return fileSum{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.sums[path]
	if e == nil || !e.done || e.spoiled {
		return fileSum{}, false
	}
	return e.sum, true
}

// created records that path names a new file, whose sum its writer will
// set (finish), and returns the file's entry.
func (s *fileSums) created(path string) *fileEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := &fileEntry{}
	s.sums[path] = e
	return e
}

// finish sets the sum of e's file, unless it was spoiled.
func (s *fileSums) finish(e *fileEntry, sum fileSum) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.sum, e.done = sum, true
}

// forget drops the name path: its file is removed, or replaced by a new
// file (Create), while the file's other names keep its sum.
func (s *fileSums) forget(path string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sums, path)
}

// spoil drops the sum of the file at path, under every name it has: it
// is opened for writing, in place.
func (s *fileSums) spoil(path string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.sums[path]; e != nil {
		e.spoiled = true
		delete(s.sums, path)
	}
}

// forgetUnder drops the names in directory dir, however dir is spelled
// (a trailing separator, a dot component): names are kept clean, as
// Pebble joins them.
func (s *fileSums) forgetUnder(dir string) {
	if s == nil {
		return
	}
	dir = filepath.Clean(dir)
	prefix := dir
	if !strings.HasSuffix(prefix, string(os.PathSeparator)) { // the root ends in one
		prefix += string(os.PathSeparator)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := range s.sums {
		if p == dir || strings.HasPrefix(p, prefix) {
			delete(s.sums, p)
		}
	}
}

// link makes newname a name of oldname's file, which it is a hard link to.
func (s *fileSums) link(oldname, newname string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.sums[oldname]; e != nil {
		s.sums[newname] = e
	} else {
		delete(s.sums, newname)
	}
}

// rename moves the file of oldname to newname.
func (s *fileSums) rename(oldname, newname string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.sums[oldname]
	delete(s.sums, oldname)
	delete(s.sums, newname)
	if e != nil {
		s.sums[newname] = e
	}
}

// summingFile is a new SST of a Store: it checksums what is written to it
// and records the sum when it is closed, if every write was a Write.
type summingFile struct {
	vfs.File
	sums  *fileSums
	entry *fileEntry
	crc   hash.Hash32
	n     int64
	bad   bool // written otherwise than by Write: no sum
}

func (f *summingFile) Write(p []byte) (int, error) {
	// The checksum goes first: vfs.File's Write may change p.
	f.crc.Write(p)
	n, err := f.File.Write(p)
	if n != len(p) || err != nil {
		f.bad = true
	}
	f.n += int64(n)
	return n, err
}

func (f *summingFile) WriteAt(p []byte, off int64) (int, error) {
	f.bad = true
	return f.File.WriteAt(p, off)
}

func (f *summingFile) Close() error {
	err := f.File.Close()
	if err == nil && !f.bad {
		f.sums.finish(f.entry, fileSum{size: f.n, crc: f.crc.Sum32()})
	}
	return err
}
