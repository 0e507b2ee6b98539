package state

import (
	"fmt"
	"io"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Linker is a Target that can take a file into storage by a hard link,
// when storage is on the file system the file is on: an SST, which never
// changes once written, need not be written a second time.
type Linker interface {
	// LinkShared is PutShared of the file at path on fs, taken as it is:
	// storage's file is the same file from now on, so the caller must
	// never change it. The file's content is synced before LinkShared
	// returns; its directory entry is synced as PutShared's is. It returns
	// "" and no error when it cannot link the file (another file system,
	// or one without hard links): the caller copies it instead.
	LinkShared(id int64, name string, fs vfs.FS, path string) (string, error)
}

// putShared puts the shared file name of the snapshot, at path, into dst:
// by a hard link if dst can take one (Linker), else by a copy.
func (sn *Snapshot) putShared(dst Target, path, name string) (FileRef, error) {
	fs := sn.s.fs
	if l, ok := dst.(Linker); ok {
		base, real := fs, path
		if sf, ok := fs.(*snapFS); ok {
			base, real = sf.FS, sf.real(path)
		}
		var sums *fileSums
		if sf, ok := base.(scratchFS); ok {
			base, sums = sf.FS, sf.sums
		}
		dstPath, err := l.LinkShared(sn.id, name, base, real)
		if err != nil {
			return FileRef{}, err
		}
		if dstPath != "" {
			// The sum taken as the file was written (fileSums), if the
			// file is still as long as it was then.
			if sum, ok := sums.get(real); ok {
				if st, err := base.Stat(real); err == nil && st.Size() == sum.size {
					return FileRef{Path: dstPath, Name: name, Size: sum.size, CRC32C: sum.crc}, nil
				}
			}
			return checksum(fs, path, name, dstPath)
		}
	}
	return copyOut(fs, path, name, func(r io.Reader) (string, error) { return dst.PutShared(sn.id, name, r) })
}

// checksum returns the reference of the file at path, which storage holds
// at dstPath, reading it whole for its CRC32C.
func checksum(fs vfs.FS, path, name, dstPath string) (FileRef, error) {
	f, err := fs.Open(path)
	if err != nil {
		return FileRef{}, err
	}
	defer f.Close()
	crc := newCRC()
	buf := readBufs.Get().(*[]byte)
	defer readBufs.Put(buf)
	n, err := io.CopyBuffer(crc, f, *buf)
	if err != nil {
		return FileRef{}, fmt.Errorf("%s: %w", name, err)
	}
	return FileRef{Path: dstPath, Name: name, Size: n, CRC32C: crc.Sum32()}, nil
}
