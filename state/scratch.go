package state

import "github.com/cockroachdb/pebble/v2/vfs"

// scratchFS is the file system of a Store's directory: fs, except that no
// file or directory is ever synced. A Store's directory is scratch (see
// the package doc): Open removes whatever an earlier process left there,
// and a restart rebuilds the state from a checkpoint, whose files Upload
// copies into checkpoint storage, which syncs them there. So every sync
// in a Store's directory (Pebble's SSTs, MANIFEST, OPTIONS and markers as
// it writes them, its directory after an ingestion, and all of them again
// in each local snapshot) would make durable what no reader ever needs
// after a crash; skipped, a checkpoint does not wait for the disk, and an
// SST that a compaction deletes within seconds may never be written out.
//
// It also takes the sums of the SSTs written in it (fileSums; none if
// sums is nil).
type scratchFS struct {
	vfs.FS
	sums *fileSums
}

func (fs scratchFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	// Pebble's Create removes a file that is there and makes a new one:
	// the old file's other names keep their sum.
	fs.sums.forget(name)
	f, err := unsynced(fs.FS.Create(name, category))
	if err != nil || fs.sums == nil || !summed(name) {
		return f, err
	}
	return &summingFile{File: f, sums: fs.sums, entry: fs.sums.created(name), crc: newCRC()}, nil
}

func (fs scratchFS) Link(oldname, newname string) error {
	if err := fs.FS.Link(oldname, newname); err != nil {
		return err
	}
	fs.sums.link(oldname, newname)
	return nil
}

func (fs scratchFS) Rename(oldname, newname string) error {
	if err := fs.FS.Rename(oldname, newname); err != nil {
		return err
	}
	fs.sums.rename(oldname, newname)
	return nil
}

func (fs scratchFS) Remove(name string) error {
	fs.sums.forget(name)
	return fs.FS.Remove(name)
}

func (fs scratchFS) RemoveAll(name string) error {
	fs.sums.forgetUnder(name)
	return fs.FS.RemoveAll(name)
}

func (fs scratchFS) Open(name string, opts ...vfs.OpenOption) (vfs.File, error) {
	return unsynced(fs.FS.Open(name, opts...))
}

func (fs scratchFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	fs.sums.spoil(name)
	return unsynced(fs.FS.OpenReadWrite(name, category, opts...))
}

func (fs scratchFS) OpenDir(name string) (vfs.File, error) {
	return unsynced(fs.FS.OpenDir(name))
}

func (fs scratchFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	fs.sums.spoil(oldname)
	fs.sums.spoil(newname)
	return unsynced(fs.FS.ReuseForWrite(oldname, newname, category))
}

// Unwrap returns the file system that scratchFS wraps, as vfs.FS asks.
func (fs scratchFS) Unwrap() vfs.FS { return fs.FS }

func unsynced(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return unsyncedFile{f}, nil
}

// unsyncedFile is a file of a scratchFS: its syncs do nothing.
type unsyncedFile struct{ vfs.File }

func (unsyncedFile) Sync() error     { return nil }
func (unsyncedFile) SyncData() error { return nil }

// SyncTo reports a full sync, so that a caller does not follow it with a
// Sync of its own.
func (unsyncedFile) SyncTo(int64) (bool, error) { return true, nil }
