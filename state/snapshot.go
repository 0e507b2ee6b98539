package state

import (
	"bytes"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// ErrCorrupt is the error that every failed verification of a checkpoint
// file wraps, here and in package checkpoint.
var ErrCorrupt = errors.New("corrupt checkpoint")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// newCRC returns a CRC32C (Castagnoli) hash, the checksum of every FileRef.
func newCRC() hash.Hash32 { return crc32.New(castagnoli) }

// FileRef is one file of a Handle, as checkpoint storage holds it.
type FileRef struct {
	Path   string // where storage holds it, relative to the job's checkpoint root
	Name   string // its name in the Pebble directory, which a restore recreates
	Size   int64
	CRC32C uint32
	// Shared is set for a file that later checkpoints of the same Store
	// may reference instead of copying it again: an SST or blob file,
	// which never changes, and an OPTIONS file, a marker or the empty
	// write-ahead log (byContent), which a later snapshot references only
	// if its own has the same bytes. The MANIFEST belongs to one
	// checkpoint.
	Shared bool
}

// Handle is what a checkpoint's metadata keeps of one Store's snapshot:
// every file needed to open it again.
type Handle struct {
	Files []FileRef
	// BytesUploaded counts the bytes this upload copied; files that an
	// earlier checkpoint already put into storage are not counted.
	BytesUploaded int64
}

// Size is the total size of the handle's files: the size of the state.
func (h Handle) Size() int64 {
	var n int64
	for _, f := range h.Files {
		n += f.Size
	}
	return n
}

// Target is checkpoint storage as an upload writes to it. Its methods may
// be called from several goroutines at once, for one checkpoint or for
// several.
type Target interface {
	// HasShared reports whether storage still holds f, a shared file that
	// an earlier upload put, at f.Path with f.Size. If so, the file counts
	// as part of checkpoint id from now on: storage must not delete it
	// before checkpoint id completes or a newer one does. If not (a
	// retention pass removed it because no complete checkpoint used it),
	// the caller puts the file again.
	HasShared(id int64, f FileRef) bool
	// PutShared copies r to EOF into a new shared file for checkpoint id,
	// under a path that no other file ever had, and returns that path. The
	// file's content is synced before PutShared returns; its directory
	// entry is synced before the checkpoint's metadata is written. name is
	// the file's name in the Pebble directory, which storage may use in the
	// path to help a reader. Storage keeps the file as HasShared does.
	PutShared(id int64, name string, r io.Reader) (path string, err error)
	// PutOwned is PutShared for a file that only checkpoint id uses and
	// that storage deletes with it.
	PutOwned(id int64, name string, r io.Reader) (path string, err error)
}

// Snapshot is the synchronous part of a checkpoint: a Pebble checkpoint of
// the Store (hard links to its SSTs, copies of the rest) in a local
// directory, which stays valid whatever the Store does next.
type Snapshot struct {
	s   *Store
	id  int64
	dir string
	// base is set when dir is a base that other snapshots share, and
	// deltas are the SSTs ingested over it (delta.go).
	base   *base
	deltas []*delta
	// released is set, under the Store's mu, once a snapshot of a chain
	// let go of its base and deltas.
	released bool
}

// Snapshot flushes the memtables, if a Batch wrote to them since the
// last Snapshot, and takes a Pebble checkpoint for
// checkpoint id. Writes committed before the call are in it, later ones are
// not. The caller must Upload or Discard it.
func (s *Store) Snapshot(id int64) (*Snapshot, error) {
	if s.written.Swap(false) {
		if err := s.db.Flush(); err != nil {
			s.written.Store(true)
			return nil, fmt.Errorf("state: snapshot %d: flush: %w", id, err)
		}
	}
	dir := s.fs.PathJoin(s.dir, snapPrefix+strconv.FormatInt(id, 10))
	// A failed earlier attempt at the same id may have left a directory,
	// and Pebble refuses to checkpoint into an existing one.
	if err := s.fs.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("state: snapshot %d: %w", id, err)
	}
	if err := s.db.Checkpoint(dir); err != nil {
		return nil, fmt.Errorf("state: snapshot %d: %w", id, err)
	}
	return &Snapshot{s: s, id: id, dir: dir}, nil
}

// Discard removes the snapshot without uploading it, when its checkpoint
// was aborted.
func (sn *Snapshot) Discard() error {
	if sn.base != nil {
		if err := sn.release(); err != nil {
			return fmt.Errorf("state: snapshot %d: %w", sn.id, err)
		}
		return nil
	}
	if err := sn.s.fs.RemoveAll(sn.dir); err != nil {
		return fmt.Errorf("state: snapshot %d: %w", sn.id, err)
	}
	return nil
}

// Upload is the asynchronous part of a checkpoint: it copies the snapshot
// into dst, reusing every SST that an earlier upload of the same Store put
// there and that dst still holds, and returns the handle for the
// checkpoint's metadata. It may run while the Store goes on processing.
// Upload removes the local snapshot when done, whether it succeeded or not;
// a snapshot is uploaded once.
func (sn *Snapshot) Upload(dst Target) (Handle, error) {
	h, err := sn.upload(dst)
	if rerr := sn.Discard(); err == nil && rerr != nil {
		err = rerr
	}
	if err != nil {
		return Handle{}, fmt.Errorf("state: upload %d: %w", sn.id, err)
	}
	return h, nil
}

func (sn *Snapshot) upload(dst Target) (Handle, error) {
	if sn.base != nil {
		if err := sn.live(); err != nil {
			return Handle{}, err
		}
	}
	fs := sn.s.fs
	names, err := fs.List(sn.dir)
	if err != nil {
		return Handle{}, err
	}
	slices.Sort(names)
	var h Handle
	for _, name := range names {
		path := fs.PathJoin(sn.dir, name)
		var (
			ref FileRef
			err error
		)
		switch {
		case strings.HasSuffix(name, ".sst") || strings.HasSuffix(name, ".blob"):
			if r, ok := sn.s.reuse(sn.id, name, nil); ok && dst.HasShared(sn.id, r) {
				h.Files = append(h.Files, r)
				continue
			}
			ref, err = sn.putShared(dst, path, name)
			if err == nil {
				ref.Shared = true
				sn.s.remember(sn.id, ref, nil)
			}
		case byContent(name):
			var b []byte
			if b, err = readSmall(fs, path); err != nil {
				return Handle{}, err
			}
			if r, ok := sn.s.reuse(sn.id, name, b); ok && dst.HasShared(sn.id, r) {
				h.Files = append(h.Files, r)
				continue
			}
			ref, err = copyOut(fs, path, name, func(r io.Reader) (string, error) { return dst.PutShared(sn.id, name, r) })
			if err == nil {
				ref.Shared = true
				sn.s.remember(sn.id, ref, b)
			}
		case sn.base != nil:
			var put bool
			if ref, put, err = sn.putBase(dst, path, name); err == nil && !put {
				h.Files = append(h.Files, ref)
				continue
			}
		default:
			ref, err = copyOut(fs, path, name, func(r io.Reader) (string, error) { return dst.PutOwned(sn.id, name, r) })
		}
		if err != nil {
			return Handle{}, err
		}
		h.Files = append(h.Files, ref)
		h.BytesUploaded += ref.Size
	}
	if err := sn.uploadDeltas(dst, &h); err != nil {
		return Handle{}, err
	}
	sn.s.forget(sn.id)
	return h, nil
}

// byContent reports whether name is one of the small files that Pebble
// writes anew into every snapshot, with the same content from one to the
// next as long as the DB's options, format, MANIFEST and memtable stay
// the same: OPTIONS, the markers (empty files whose names carry the
// format version and the current MANIFEST), and the write-ahead log,
// which is empty since a Store has none (DisableWAL). Such a file is
// uploaded as a shared one, and a later snapshot's file of the same name
// and the same bytes references it instead of putting a copy: a
// checkpoint puts only its new SSTs and its MANIFEST.
func byContent(name string) bool {
	return strings.HasPrefix(name, "OPTIONS-") || strings.HasPrefix(name, "marker.") || strings.HasSuffix(name, ".log")
}

// readSmall reads the small file at path whole.
func readSmall(fs vfs.FS, path string) ([]byte, error) {
	f, err := fs.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// copyOut feeds the file at path to put and returns its reference, with
// the size and checksum of exactly the bytes put consumed.
func copyOut(fs vfs.FS, path, name string, put func(io.Reader) (string, error)) (FileRef, error) {
	f, err := fs.Open(path)
	if err != nil {
		return FileRef{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return FileRef{}, err
	}
	r := &summer{r: f, crc: newCRC()}
	dstPath, err := put(r)
	if err != nil {
		return FileRef{}, err
	}
	if r.n != st.Size() {
		return FileRef{}, fmt.Errorf("%s: storage took %d of %d bytes", name, r.n, st.Size())
	}
	return FileRef{Path: dstPath, Name: name, Size: r.n, CRC32C: r.crc.Sum32()}, nil
}

// summer counts and checksums what is read through it.
type summer struct {
	r   io.Reader
	crc hash.Hash32
	n   int64
}

func (s *summer) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.crc.Write(p[:n])
	s.n += int64(n)
	return n, err
}

// reuse returns the reference of the file named name that an earlier
// upload put, marking it used by snapshot id. A file uploaded by content
// (byContent) is the same only if content holds its bytes.
func (s *Store) reuse(id int64, name string, content []byte) (FileRef, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.uploaded[name]
	if ok && byContent(name) && !bytes.Equal(u.content, content) {
		return FileRef{}, false
	}
	if ok {
		u.last = max(u.last, id)
		s.uploaded[name] = u
	}
	return u.ref, ok
}

// remember records where an upload for snapshot id put a shared file,
// and, for a file uploaded by content, its bytes.
func (s *Store) remember(id int64, ref FileRef, content []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.uploaded[ref.Name] = upload{ref: ref, last: max(s.uploaded[ref.Name].last, id), content: content}
}

// forget drops files that no snapshot since id references: compactions
// deleted them, so no later snapshot will either.
func (s *Store) forget(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, u := range s.uploaded {
		if u.last < id {
			delete(s.uploaded, name)
		}
	}
}
