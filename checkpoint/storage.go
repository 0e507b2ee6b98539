package checkpoint

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/state"
)

// ErrCorrupt is wrapped by every error that refuses a checkpoint because a
// file it needs is missing, truncated, too long or fails its checksum, or
// its _metadata is absent (an incomplete checkpoint) or damaged. It is
// state.ErrCorrupt, so a restore's own verification matches it too.
var ErrCorrupt = state.ErrCorrupt

// ErrIncomplete is wrapped by the error for a checkpoint directory without
// _metadata: a checkpoint that was being written when its run stopped,
// normal after a crash. errors.Is matches it to ErrCorrupt as well: such a
// checkpoint is never used either.
var ErrIncomplete error = incomplete{}

type incomplete struct{}

func (incomplete) Error() string        { return "incomplete checkpoint" }
func (incomplete) Is(target error) bool { return target == ErrCorrupt }

// Names inside a job's checkpoint root.
const (
	sharedDir    = "shared"
	chkPrefix    = "chk-"
	metadataName = "_metadata"
	lineageName  = "lineage"
	endedName    = "ended"
)

// Storage is the checkpoint storage of one job: the directory tree under
// root described in the package documentation. It implements state.Target
// for uploads and state.Source for restores. Its methods may be called
// from several goroutines.
type Storage struct {
	fs   vfs.FS
	root string

	// mu orders Write and Retain with each other and with the moments at
	// which uploads claim shared files, so that Retain never deletes a file
	// that a checkpoint being written still needs.
	mu sync.Mutex
	// claimed maps each shared file that an upload put or reused to the
	// newest checkpoint that did. Until a checkpoint at least that new
	// completes, Retain keeps the file, though no complete checkpoint
	// references it yet. Only this process's uploads are in flight, so an
	// empty map after a restart is right.
	claimed map[string]int64
	// held maps each shared file that this Storage put, or found with
	// HasShared, and has not deleted since, to its size: HasShared
	// answers for those without a stat of each, checkpoint after
	// checkpoint. Only this process writes or deletes in storage (see
	// lock.go).
	held map[string]int64
}

var (
	_ state.Target = (*Storage)(nil)
	_ state.Linker = (*Storage)(nil)
	_ state.Source = (*Storage)(nil)
)

// OpenStorage opens the checkpoint storage at root on fs, creating root
// and its shared directory (durably) if needed.
func OpenStorage(fs vfs.FS, root string) (*Storage, error) {
	s := &Storage{fs: fs, root: root, claimed: map[string]int64{}, held: map[string]int64{}}
	if err := s.mkdirs(); err != nil {
		return nil, err
	}
	return s, nil
}

// mkdirs creates root/shared and every missing parent, syncing the parent
// of each directory it creates so that the entry survives a power loss.
func (s *Storage) mkdirs() error {
	dir := s.path(sharedDir)
	var created []string
	for d := dir; ; d = s.fs.PathDir(d) {
		if _, err := s.fs.Stat(d); err == nil {
			break
		} else if !errors.Is(err, iofs.ErrNotExist) {
			return fmt.Errorf("checkpoint: %w", err)
		}
		created = append(created, d)
		if s.fs.PathDir(d) == d {
			break
		}
	}
	if err := s.fs.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	for _, d := range created {
		if err := s.syncDir(s.fs.PathDir(d)); err != nil {
			return err
		}
	}
	return nil
}

// path turns a path relative to root, with / separators, into one on fs.
func (s *Storage) path(rel string) string {
	return s.fs.PathJoin(append([]string{s.root}, strings.Split(rel, "/")...)...)
}

func (s *Storage) syncDir(dir string) error {
	d, err := s.fs.OpenDir(dir)
	if err != nil {
		return fmt.Errorf("checkpoint: sync %s: %w", dir, err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("checkpoint: sync %s: %w", dir, err)
	}
	return nil
}

func chkDir(id int64) string { return chkPrefix + strconv.FormatInt(id, 10) }

// ids returns the IDs of every chk-<n> directory, complete or not, in
// increasing order.
func (s *Storage) ids() ([]int64, error) {
	names, err := s.fs.List(s.root)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var ids []int64
	for _, n := range names {
		if id, ok := parseChkDir(n); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

func parseChkDir(name string) (int64, bool) {
	digits, ok := strings.CutPrefix(name, chkPrefix)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(digits, 10, 64)
	return id, err == nil && id > 0 && strconv.FormatInt(id, 10) == digits
}

// NextID returns an ID greater than that of every checkpoint directory in
// storage, complete, incomplete or corrupt: the ID the next checkpoint
// must have, since Write refuses IDs that do not increase (see Write).
func (s *Storage) NextID() (int64, error) {
	ids, err := s.ids()
	if err != nil || len(ids) == 0 {
		return 1, err
	}
	return ids[len(ids)-1] + 1, nil
}

// HasShared implements state.Target.
func (s *Storage) HasShared(id int64, f state.FileRef) bool {
	if !isShared(f.Path) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if size, ok := s.held[f.Path]; !ok || size != f.Size {
		st, err := s.fs.Stat(s.path(f.Path))
		if err != nil || st.Size() != f.Size {
			return false
		}
		s.held[f.Path] = f.Size
	}
	s.claim(id, f.Path)
	return true
}

// hold records that storage holds the shared file at path, of size bytes.
func (s *Storage) hold(path string, size int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held[path] = size
}

// claim records that checkpoint id uses the shared file at path. s.mu is
// held.
func (s *Storage) claim(id int64, path string) {
	s.claimed[path] = max(s.claimed[path], id)
}

// unclaim drops the claim on the new shared path that a failed put or
// link claimed and did not make: no checkpoint uses it, and only this
// upload knew its random name.
func (s *Storage) unclaim(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.claimed, path)
}

// isShared reports whether path names a file directly in shared/.
func isShared(path string) bool {
	name, ok := strings.CutPrefix(path, sharedDir+"/")
	return ok && validName(name)
}

func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\`)
}

// PutShared implements state.Target. The file's name is name behind a
// random prefix: Pebble's names repeat across subtasks and across a DB
// restored by rewriting, but a shared path must never name two contents.
func (s *Storage) PutShared(id int64, name string, r io.Reader) (string, error) {
	path := sharedDir + "/" + rand.Text() + "-" + name
	s.mu.Lock()
	s.claim(id, path)
	s.mu.Unlock()
	n, err := s.createN(path, r)
	if err != nil {
		s.unclaim(path)
		return "", err
	}
	s.hold(path, n)
	return path, nil
}

// LinkShared implements state.Linker: when fs is storage's own file
// system, the file at path gets a hard link under a new shared path, as
// PutShared would name it, and is synced there. A failed link (another
// device, a file system without links) leaves nothing behind, no claim
// either, and the caller copies the file instead.
func (s *Storage) LinkShared(id int64, name string, fs vfs.FS, path string) (string, error) {
	if !sameFS(fs, s.fs) {
		return "", nil
	}
	dst := sharedDir + "/" + rand.Text() + "-" + name
	s.mu.Lock()
	s.claim(id, dst)
	s.mu.Unlock()
	full := s.path(dst)
	if err := s.fs.Link(path, full); err != nil {
		s.unclaim(dst)
		return "", nil
	}
	// The file was written without a sync (a Store's directory is
	// scratch): its content is made durable here, through the new link.
	f, err := s.fs.Open(full)
	if err != nil {
		f = nil // whatever a failed Open returned, there is nothing to close
	}
	if err := s.syncOrRemove(full, f, err); err != nil {
		s.unclaim(dst)
		return "", fmt.Errorf("checkpoint: sync %s: %w", full, err)
	}
	return dst, nil
}

// syncOrRemove finishes the file at full that storage made: f is the file
// (nil if opening it failed) and err the error so far. It syncs and
// closes f, and removes the file if any step failed, so that the file is
// either durable or gone. It returns the first error.
func (s *Storage) syncOrRemove(full string, f vfs.File, err error) error {
	if f != nil {
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		_ = s.fs.Remove(full)
	}
	return err
}

// sameFS reports whether a and b are the same file system, so that a
// path on one names the same file on the other.
func sameFS(a, b vfs.FS) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta != nil && ta == tb && ta.Comparable() && a == b
}

// PutOwned implements state.Target. The file goes into chk-<id>/, which
// is deleted as a whole with the checkpoint.
func (s *Storage) PutOwned(id int64, name string, r io.Reader) (string, error) {
	dir := chkDir(id)
	if err := s.fs.MkdirAll(s.path(dir), 0o755); err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	path := dir + "/" + rand.Text() + "-" + name
	return path, s.create(path, r)
}

// copyBufs are create's copy buffers: a checkpoint creates a few files
// per subtask, and a fresh 256 KiB buffer for each cost its zeroing and
// page faults every time.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// create writes r to the file at path and syncs it. Its directory entry is
// synced by Write, once for all files of a checkpoint.
func (s *Storage) create(path string, r io.Reader) error {
	_, err := s.createN(path, r)
	return err
}

// createN is create, returning the bytes written.
func (s *Storage) createN(path string, r io.Reader) (int64, error) {
	full := s.path(path)
	f, err := s.fs.Create(full, vfs.WriteCategoryUnspecified)
	if err != nil {
		return 0, fmt.Errorf("checkpoint: %w", err)
	}
	buf := copyBufs.Get().(*[]byte)
	n, err := io.CopyBuffer(f, r, *buf)
	copyBufs.Put(buf)
	if err := s.syncOrRemove(full, f, err); err != nil {
		return 0, fmt.Errorf("checkpoint: write %s: %w", full, err)
	}
	return n, nil
}

// Open implements state.Source.
func (s *Storage) Open(path string) (io.ReadCloser, error) {
	return s.fs.Open(s.path(path))
}

// Discard removes every checkpoint and every shared file of the job, for a
// run that starts afresh, and leaves the storage ready for new ones.
func (s *Storage) Discard() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fs.RemoveAll(s.root); err != nil {
		return fmt.Errorf("checkpoint: discard %s: %w", s.root, err)
	}
	clear(s.claimed)
	clear(s.held)
	return s.mkdirs()
}

// Lineage returns the lineage the job's latest run started or continued
// (see SetLineage), or "" if none is recorded. Storage written before the
// record existed answers with the newest readable checkpoint's job.
func (s *Storage) Lineage() (string, error) {
	name, ok, err := s.record(lineageName)
	if ok || err != nil {
		return name, err
	}
	md, err := s.Newest()
	if md == nil || err != nil {
		return "", err
	}
	return md.Job, nil
}

// Ended returns the lineage whose run last ended after its final
// checkpoint, as SetEnded recorded it, or "" if none is recorded.
func (s *Storage) Ended() (string, error) {
	name, _, err := s.record(endedName)
	return name, err
}

// SetEnded records, durably, that the run of lineage name which took its
// final checkpoint has ended, its output committed and reported: a later
// run of the job is a new one, which starts afresh. Without the record, a
// finished checkpoint is one whose run died after it (a kill between the
// final checkpoint and the exit), and the next run only finishes its
// commit: starting afresh there would write the whole output again.
func (s *Storage) SetEnded(name string) error {
	return s.setRecord(endedName, name)
}

// SetLineage records, durably, the lineage a run starts, before it writes
// any output: if its checkpoints are later lost or all corrupt, a fresh
// start still knows whose output to remove.
func (s *Storage) SetLineage(name string) error {
	return s.setRecord(lineageName, name)
}

// record reads the one-line record file under root; ok is false when the
// file does not exist.
func (s *Storage) record(file string) (value string, ok bool, err error) {
	f, err := s.fs.Open(s.path(file))
	if errors.Is(err, iofs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return "", false, fmt.Errorf("checkpoint: %s: %w", s.path(file), err)
	}
	return strings.TrimSpace(string(b)), true, nil
}

// setRecord replaces the record file under root durably: written aside,
// renamed into place, the directory synced.
func (s *Storage) setRecord(file, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	tmp := file + ".tmp"
	if err := s.create(tmp, strings.NewReader(value+"\n")); err != nil {
		return err
	}
	if err := s.fs.Rename(s.path(tmp), s.path(file)); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return s.syncDir(s.root)
}
