package state

import (
	"hash"
	"os"
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
// for writing) gets no sum, and is read as before.
type fileSums struct {
	mu   sync.Mutex
	sums map[string]fileSum // by path on the Store's file system
}

// fileSum is the size and CRC32C of a file's bytes.
type fileSum struct {
	size int64
	crc  uint32
}

func newFileSums() *fileSums { return &fileSums{sums: map[string]fileSum{}} }

// summed reports whether name is a file whose sum is taken: an SST.
func summed(name string) bool { return strings.HasSuffix(name, ".sst") }

// get returns the sum of the file at path, if it was taken.
func (s *fileSums) get(path string) (fileSum, bool) {
	if s == nil {
		return fileSum{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sum, ok := s.sums[path]
	return sum, ok
}

func (s *fileSums) set(path string, sum fileSum) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sums[path] = sum
}

// forget drops the sum of the file at path: it is removed, or written anew.
func (s *fileSums) forget(path string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sums, path)
}

// forgetUnder drops the sums of the files in directory dir.
func (s *fileSums) forgetUnder(dir string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := range s.sums {
		if p == dir || strings.HasPrefix(p, dir+string(os.PathSeparator)) {
			delete(s.sums, p)
		}
	}
}

// link gives newname the sum of oldname, which it is a hard link to.
func (s *fileSums) link(oldname, newname string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sum, ok := s.sums[oldname]; ok {
		s.sums[newname] = sum
	} else {
		delete(s.sums, newname)
	}
}

// rename moves the sum of oldname to newname.
func (s *fileSums) rename(oldname, newname string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sum, ok := s.sums[oldname]
	delete(s.sums, oldname)
	delete(s.sums, newname)
	if ok {
		s.sums[newname] = sum
	}
}

// summingFile is a new SST of a Store: it checksums what is written to it
// and records the sum when it is closed, if every write was a Write.
type summingFile struct {
	vfs.File
	sums *fileSums
	path string
	crc  hash.Hash32
	n    int64
	bad  bool // written otherwise than by Write: no sum
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
		f.sums.set(f.path, fileSum{size: f.n, crc: f.crc.Sum32()})
	}
	return err
}
