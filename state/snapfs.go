package state

import (
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// snapFS is the file system of a Store: its scratch directory (scratchFS),
// except that the directories of its snapshots (snap-<id>) are kept in
// memory. A snapshot is read once, by its upload, and then removed; on
// disk, Pebble's checkpoint into it cost a directory, a hard link per SST
// (tens: every file of the state) and four new files (OPTIONS, MANIFEST
// and two markers), each a system call, and new files a dear one, and as
// many removals again. Here the small files are in memory, and a link to
// an SST is a name recorded with the file it names.
//
// A file that a snapshot links to must stay readable until the snapshot
// is removed, as a hard link would keep it: when Pebble removes such a
// file (its compactions do), the removal waits for the last snapshot that
// links to it.
type snapFS struct {
	vfs.FS // the scratch directory, where everything else is
	// snaps is the prefix of every path in a snapshot directory.
	snaps string
	mem   *vfs.MemFS

	mu sync.Mutex
	// links maps a link in a snapshot to the file it names; linked counts
	// the links to each file, and doomed holds the files removed while
	// linked.
	links  map[string]string
	linked map[string]int
	doomed map[string]bool
}

func newSnapFS(fs vfs.FS, dir string) *snapFS {
	return &snapFS{FS: fs, snaps: fs.PathJoin(dir, snapPrefix), mem: vfs.NewMem(),
		links: map[string]string{}, linked: map[string]int{}, doomed: map[string]bool{}}
}

// inSnap reports whether name is in a snapshot directory, or is one.
func (fs *snapFS) inSnap(name string) bool { return strings.HasPrefix(name, fs.snaps) }

// real returns the file that name stands for: the file a link names, or
// name itself.
func (fs *snapFS) real(name string) string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if r, ok := fs.links[name]; ok {
		return r
	}
	return name
}

// link returns the file that the link name names, if name is one.
func (fs *snapFS) link(name string) (string, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	r, ok := fs.links[name]
	return r, ok
}

func (fs *snapFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	if fs.inSnap(name) {
		return fs.mem.Create(name, category)
	}
	return fs.FS.Create(name, category)
}

// Link records a link in a snapshot to oldname, any other link is made on
// disk. Pebble links only files it holds, so whether oldname exists is
// not checked here: a link to a missing file fails when it is opened.
func (fs *snapFS) Link(oldname, newname string) error {
	if !fs.inSnap(newname) {
		return fs.FS.Link(oldname, newname)
	}
	if _, err := fs.mem.Stat(fs.mem.PathDir(newname)); err != nil {
		return err
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if _, ok := fs.links[newname]; ok {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: os.ErrExist}
	}
	fs.links[newname] = oldname
	fs.linked[oldname]++
	return nil
}

func (fs *snapFS) Open(name string, opts ...vfs.OpenOption) (vfs.File, error) {
	if r, ok := fs.link(name); ok {
		return fs.FS.Open(r, opts...)
	}
	if fs.inSnap(name) {
		return fs.mem.Open(name, opts...)
	}
	return fs.FS.Open(name, opts...)
}

func (fs *snapFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	if fs.inSnap(name) {
		return fs.mem.OpenReadWrite(name, category, opts...)
	}
	return fs.FS.OpenReadWrite(name, category, opts...)
}

func (fs *snapFS) OpenDir(name string) (vfs.File, error) {
	if fs.inSnap(name) {
		return fs.mem.OpenDir(name)
	}
	return fs.FS.OpenDir(name)
}

// Remove removes name; a file that a snapshot links to is removed when
// the last such snapshot is.
func (fs *snapFS) Remove(name string) error {
	fs.mu.Lock()
	if r, ok := fs.links[name]; ok {
		delete(fs.links, name)
		err := fs.unlinkLocked(r)
		fs.mu.Unlock()
		return err
	}
	if fs.linked[name] > 0 {
		if _, err := fs.FS.Stat(name); err != nil {
			fs.mu.Unlock()
			return err
		}
		fs.doomed[name] = true
		fs.mu.Unlock()
		return nil
	}
	fs.mu.Unlock()
	if fs.inSnap(name) {
		return fs.mem.Remove(name)
	}
	return fs.FS.Remove(name)
}

// unlinkLocked drops a link to r, removing r if it was removed while
// linked and this was its last link. fs.mu is held.
func (fs *snapFS) unlinkLocked(r string) error {
	fs.linked[r]--
	if fs.linked[r] > 0 {
		return nil
	}
	delete(fs.linked, r)
	if !fs.doomed[r] {
		return nil
	}
	delete(fs.doomed, r)
	return fs.FS.Remove(r)
}

// GetDiskUsage answers for a snapshot directory, which is in memory,
// with the disk of the store's directory: Pebble asks it of every DB it
// opens (a savepoint's export opens the snapshot), and logs a failure as
// a background error on the user's terminal.
func (fs *snapFS) GetDiskUsage(name string) (vfs.DiskUsage, error) {
	if fs.inSnap(name) {
		name = fs.FS.PathDir(fs.snaps)
	}
	return fs.FS.GetDiskUsage(name)
}

func (fs *snapFS) RemoveAll(name string) error {
	if !fs.inSnap(name) && !strings.HasPrefix(fs.snaps, name) {
		return fs.FS.RemoveAll(name)
	}
	// name is a snapshot directory (or in one), or holds them.
	fs.mu.Lock()
	var err error
	for l, r := range fs.links {
		if l == name || strings.HasPrefix(l, name+string(os.PathSeparator)) {
			delete(fs.links, l)
			if uerr := fs.unlinkLocked(r); err == nil {
				err = uerr
			}
		}
	}
	fs.mu.Unlock()
	if merr := fs.mem.RemoveAll(name); err == nil {
		err = merr
	}
	if !fs.inSnap(name) {
		if rerr := fs.FS.RemoveAll(name); err == nil {
			err = rerr
		}
	}
	return err
}

func (fs *snapFS) Rename(oldname, newname string) error {
	if fs.inSnap(oldname) || fs.inSnap(newname) {
		return fs.mem.Rename(oldname, newname)
	}
	return fs.FS.Rename(oldname, newname)
}

func (fs *snapFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	if fs.inSnap(newname) {
		return fs.mem.ReuseForWrite(oldname, newname, category)
	}
	return fs.FS.ReuseForWrite(oldname, newname, category)
}

func (fs *snapFS) MkdirAll(dir string, perm os.FileMode) error {
	if fs.inSnap(dir) {
		return fs.mem.MkdirAll(dir, perm)
	}
	return fs.FS.MkdirAll(dir, perm)
}

func (fs *snapFS) Lock(name string) (io.Closer, error) {
	if fs.inSnap(name) {
		return fs.mem.Lock(name)
	}
	return fs.FS.Lock(name)
}

// List lists a directory; a snapshot directory's links are among its
// names.
func (fs *snapFS) List(dir string) ([]string, error) {
	if !fs.inSnap(dir) {
		return fs.FS.List(dir)
	}
	names, err := fs.mem.List(dir)
	if err != nil {
		return nil, err
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for l := range fs.links {
		if fs.FS.PathDir(l) == dir {
			names = append(names, fs.FS.PathBase(l))
		}
	}
	slices.Sort(names)
	return names, nil
}

func (fs *snapFS) Stat(name string) (vfs.FileInfo, error) {
	if r, ok := fs.link(name); ok {
		return fs.FS.Stat(r)
	}
	if fs.inSnap(name) {
		return fs.mem.Stat(name)
	}
	return fs.FS.Stat(name)
}

// Unwrap returns the file system that snapFS wraps, as vfs.FS asks.
func (fs *snapFS) Unwrap() vfs.FS { return fs.FS }
