package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"net/url"
	"os"
	"path"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	// The drivers every build has: the local filesystem, and memory for
	// tests. s3:// and gs:// are registered by the cloud build tag (see
	// cmd/strand).
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/memblob"
)

// IsURL reports whether dir names checkpoint storage by URL (file://,
// mem://, s3://, gs://) rather than as a local directory.
func IsURL(dir string) bool {
	scheme, _, ok := strings.Cut(dir, "://")
	return ok && scheme != "" && !strings.ContainsAny(scheme, `/\`)
}

// OpenURL opens the bucket that the URL u names; its path, if any, is
// the prefix under which the storage lives, returned as root for
// OpenStorage over BlobFS. A file:// URL's directory is created if needed.
// The bucket stays open for the process's life: a session's jobs share
// it.
func OpenURL(ctx context.Context, u string) (fs vfs.FS, root string, err error) {
	parsed, err := url.Parse(u)
	if err != nil {
		return nil, "", fmt.Errorf("checkpoint storage %s: %w", u, err)
	}
	bucketURL := u
	if parsed.Scheme == "file" {
		if err := os.MkdirAll(parsed.Path, 0o755); err != nil {
			return nil, "", fmt.Errorf("checkpoint storage %s: %w", u, err)
		}
	} else if parsed.Path != "" && parsed.Path != "/" {
		// The bucket is the host; the path is a prefix within it.
		root = strings.Trim(parsed.Path, "/")
		parsed.Path = ""
		bucketURL = parsed.String()
	}
	b, err := blob.OpenBucket(ctx, bucketURL)
	if err != nil {
		return nil, "", fmt.Errorf("checkpoint storage %s: %w (strand registers file:// and mem://; s3:// and gs:// need a build with -tags cloud)", u, err)
	}
	return BlobFS(b), root, nil
}

// BlobFS is checkpoint storage on a gocloud.dev bucket (object storage),
// as a vfs.FS with what Storage uses: objects are written whole and
// appear only when their writer closes, so Sync is a no-op and a rename
// is a copy, which makes the new name appear whole, then a delete.
// _metadata is still written last: a checkpoint is visible exactly when
// it is complete. Directories do not exist in a bucket: a name with
// objects below it is one, MkdirAll does nothing. Paths are
// slash-separated keys, "" the bucket's root.
func BlobFS(b *blob.Bucket) vfs.FS { return &blobFS{b: b} }

type blobFS struct{ b *blob.Bucket }

// blobTimeout bounds one bucket operation.
const blobTimeout = 5 * time.Minute

func ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), blobTimeout)
}

// notExist maps a bucket's not-found error to iofs.ErrNotExist.
func notExist(name string, err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return &iofs.PathError{Op: "open", Path: name, Err: iofs.ErrNotExist}
	}
	return err
}

var errBlobUnsupported = errors.New("not supported by object storage")

func (fs *blobFS) Create(name string, _ vfs.DiskWriteCategory) (vfs.File, error) {
	c, cancel := context.WithCancel(context.Background())
	w, err := fs.b.NewWriter(c, name, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	return &blobFile{name: name, w: w, cancel: cancel}, nil
}

func (fs *blobFS) Open(name string, _ ...vfs.OpenOption) (vfs.File, error) {
	c, cancel := ctx()
	defer cancel()
	r, err := fs.b.NewReader(c, name, nil)
	if err != nil {
		return nil, notExist(name, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return &blobFile{name: name, r: bytes.NewReader(data), size: int64(len(data))}, nil
}

func (fs *blobFS) OpenDir(name string) (vfs.File, error) {
	return &blobFile{name: name, dir: true}, nil
}

func (fs *blobFS) Remove(name string) error {
	c, cancel := ctx()
	defer cancel()
	return notExist(name, fs.b.Delete(c, name))
}

func (fs *blobFS) RemoveAll(name string) error {
	c, cancel := ctx()
	defer cancel()
	prefix := name + "/"
	if name == "" {
		prefix = ""
	}
	it := fs.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(c)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fs.b.Delete(c, o.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return err
		}
	}
}

func (fs *blobFS) Rename(oldname, newname string) error {
	c, cancel := ctx()
	defer cancel()
	if err := fs.b.Copy(c, newname, oldname, nil); err != nil {
		return notExist(oldname, err)
	}
	return fs.b.Delete(c, oldname)
}

func (fs *blobFS) MkdirAll(string, os.FileMode) error { return nil }

// List returns the names directly under dir: objects and the
// "directories" of deeper ones.
func (fs *blobFS) List(dir string) ([]string, error) {
	c, cancel := ctx()
	defer cancel()
	prefix := dir + "/"
	if dir == "" {
		prefix = ""
	}
	it := fs.b.List(&blob.ListOptions{Prefix: prefix, Delimiter: "/"})
	var names []string
	for {
		o, err := it.Next(c)
		if err == io.EOF {
			return names, nil
		}
		if err != nil {
			return nil, err
		}
		if n := strings.TrimSuffix(strings.TrimPrefix(o.Key, prefix), "/"); n != "" {
			names = append(names, n)
		}
	}
}

func (fs *blobFS) Stat(name string) (vfs.FileInfo, error) {
	if name == "" { // the bucket's root is a directory
		return blobInfo{dir: true}, nil
	}
	c, cancel := ctx()
	defer cancel()
	a, err := fs.b.Attributes(c, name)
	if err == nil {
		return blobInfo{name: path.Base(name), size: a.Size, mod: a.ModTime}, nil
	}
	if gcerrors.Code(err) != gcerrors.NotFound {
		return nil, err
	}
	// A directory is a prefix with objects below it.
	it := fs.b.List(&blob.ListOptions{Prefix: name + "/"})
	if _, err := it.Next(c); err == nil {
		return blobInfo{name: path.Base(name), dir: true}, nil
	}
	return nil, notExist(name, err)
}

func (fs *blobFS) PathBase(p string) string { return path.Base(p) }

func (fs *blobFS) PathJoin(elem ...string) string {
	return strings.TrimPrefix(path.Join(elem...), "/")
}

func (fs *blobFS) PathDir(p string) string {
	if d := path.Dir(p); d != "." && d != "/" {
		return d
	}
	return ""
}

func (fs *blobFS) Link(string, string) error { return errBlobUnsupported }

func (fs *blobFS) OpenReadWrite(string, vfs.DiskWriteCategory, ...vfs.OpenOption) (vfs.File, error) {
	return nil, errBlobUnsupported
}

func (fs *blobFS) ReuseForWrite(string, string, vfs.DiskWriteCategory) (vfs.File, error) {
	return nil, errBlobUnsupported
}

func (fs *blobFS) Lock(string) (io.Closer, error) { return nil, errBlobUnsupported }

func (fs *blobFS) GetDiskUsage(string) (vfs.DiskUsage, error) {
	return vfs.DiskUsage{}, errBlobUnsupported
}

func (fs *blobFS) Unwrap() vfs.FS { return nil }

// blobFile is an object being written (w), one read whole (r), or a
// directory (whose Sync does nothing).
type blobFile struct {
	name   string
	w      *blob.Writer
	cancel context.CancelFunc
	r      *bytes.Reader
	size   int64
	dir    bool
}

func (f *blobFile) Write(p []byte) (int, error) {
	if f.w == nil {
		return 0, fmt.Errorf("%s: not open for writing", f.name)
	}
	return f.w.Write(p)
}

// Close commits a written object: only now does it appear.
func (f *blobFile) Close() error {
	if f.w == nil {
		return nil
	}
	err := f.w.Close()
	f.cancel()
	f.w = nil
	return err
}

func (f *blobFile) Read(p []byte) (int, error) {
	if f.r == nil {
		return 0, io.EOF
	}
	return f.r.Read(p)
}

func (f *blobFile) ReadAt(p []byte, off int64) (int, error) {
	if f.r == nil {
		return 0, io.EOF
	}
	return f.r.ReadAt(p, off)
}

func (f *blobFile) WriteAt([]byte, int64) (int, error) { return 0, errBlobUnsupported }
func (f *blobFile) Preallocate(int64, int64) error     { return nil }
func (f *blobFile) Stat() (vfs.FileInfo, error) {
	return blobInfo{name: path.Base(f.name), size: f.size, dir: f.dir}, nil
}
func (f *blobFile) Sync() error                 { return nil }
func (f *blobFile) SyncTo(int64) (bool, error)  { return true, nil }
func (f *blobFile) SyncData() error             { return nil }
func (f *blobFile) Prefetch(int64, int64) error { return nil }
func (f *blobFile) Fd() uintptr                 { return vfs.InvalidFd }

type blobInfo struct {
	name string
	size int64
	mod  time.Time
	dir  bool
}

func (i blobInfo) Name() string { return i.name }
func (i blobInfo) Size() int64  { return i.size }
func (i blobInfo) Mode() iofs.FileMode {
	if i.dir {
		return iofs.ModeDir | 0o755
	}
	return 0o644
}
func (i blobInfo) ModTime() time.Time { return i.mod }
func (i blobInfo) IsDir() bool        { return i.dir }
func (i blobInfo) Sys() any           { return nil }
func (i blobInfo) DeviceID() vfs.DeviceID {
	return vfs.DeviceID{}
}
