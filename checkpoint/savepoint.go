package checkpoint

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/state"
)

// A savepoint is a self-contained directory that a user asked for:
//
//	savepoint-<job>-<yyyymmdd-hhmmss>-<rand>/_metadata
//	savepoint-<job>-<yyyymmdd-hhmmss>-<rand>/<uid>-<subtask>.state
//
// _metadata is a checkpoint's Metadata (Kind Savepoint) under the magic
// "strandsp"; every operator subtask's state is a state.Export file
// (SubtaskState.Data) whose path is relative to the directory, so the
// directory can be moved or copied anywhere. A savepoint being written is
// a hidden directory (.savepoint-...inprogress) renamed into place once
// _metadata is synced, so nothing partial ever looks complete.
const (
	spMagic   = "strandsp"
	spVersion = 1
	spPrefix  = "savepoint-"
)

// ErrSavepoint is what every refused savepoint wraps: missing, truncated,
// corrupt, of a newer format, or not a savepoint.
var ErrSavepoint = errors.New("invalid savepoint")

// NewSavepointDir creates the hidden directory a savepoint of job is
// written to, in parent, and returns it with the name it gets when
// complete.
func NewSavepointDir(parent, job string) (tmp, final string, err error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", "", fmt.Errorf("savepoint: %w", err)
	}
	var r [3]byte
	_, _ = rand.Read(r[:])
	short := job
	if len(short) > 6 {
		short = short[:6]
	}
	name := fmt.Sprintf("%s%s-%s-%s", spPrefix, short, time.Now().UTC().Format("20060102-150405"), hex.EncodeToString(r[:]))
	final = filepath.Join(parent, name)
	tmp = filepath.Join(parent, "."+name+".inprogress")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return "", "", fmt.Errorf("savepoint: %w", err)
	}
	return tmp, final, nil
}

// WriteSavepoint completes the savepoint written to tmp: it writes
// _metadata (synced), renames tmp to final and syncs the parent. Every
// Data file must already be in tmp, synced, with its size.
func WriteSavepoint(tmp, final string, md *Metadata) error {
	if err := writeSavepoint(tmp, final, md); err != nil {
		return fmt.Errorf("savepoint %s: %w", final, err)
	}
	return nil
}

func writeSavepoint(tmp, final string, md *Metadata) error {
	md.Kind = Savepoint
	for _, f := range spFiles(md) {
		if !validName(f.Path) || f.Path == metadataName {
			return fmt.Errorf("state file %q is not a plain name", f.Path)
		}
		st, err := os.Stat(filepath.Join(tmp, f.Path))
		if err := sizeIs(st, err, f); err != nil {
			return err
		}
	}
	b, err := encode(md)
	if err != nil {
		return err
	}
	copy(b, spMagic)
	binary.LittleEndian.PutUint32(b[8:], spVersion)
	// The directory as checkpoint storage writes one: synced file, then
	// synced directory entries.
	sp := &Storage{fs: vfs.Default, root: tmp}
	if err := sp.create(metadataName, bytes.NewReader(b)); err != nil {
		return err
	}
	if err := sp.syncDir(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	return sp.syncDir(filepath.Dir(final))
}

// spFiles returns the Data files of a savepoint.
func spFiles(md *Metadata) []state.FileRef {
	var fs []state.FileRef
	for _, op := range md.Operators {
		for _, st := range op.Subtasks {
			if st.Data != nil {
				fs = append(fs, *st.Data)
			}
		}
	}
	return fs
}

// LoadSavepoint reads the savepoint in dir (or dir's _metadata) and
// verifies it before anything runs: _metadata's magic, format version and
// checksum, and every state file's size and CRC32C. A savepoint that fails
// is refused with an error wrapping ErrSavepoint that names the file and
// says what is wrong with it.
func LoadSavepoint(dir string) (*Metadata, error) {
	if filepath.Base(dir) == metadataName {
		dir = filepath.Dir(dir)
	}
	md, err := loadSavepoint(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSavepoint, err)
	}
	return md, nil
}

func loadSavepoint(dir string) (*Metadata, error) {
	meta := filepath.Join(dir, metadataName)
	b, err := os.ReadFile(meta)
	if errors.Is(err, iofs.ErrNotExist) {
		if _, derr := os.Stat(dir); derr != nil {
			return nil, fmt.Errorf("%s: no such savepoint directory", dir)
		}
		return nil, fmt.Errorf("%s: missing: not a complete savepoint", meta)
	}
	if err != nil {
		return nil, err
	}
	if len(b) >= 8 && string(b[:8]) == magic {
		return nil, fmt.Errorf("%s: a checkpoint, not a savepoint: restore it with --from-checkpoint", meta)
	}
	if len(b) >= 8 && string(b[:8]) == spMagic {
		if len(b) < headerSize {
			return nil, fmt.Errorf("%s: truncated: %d bytes, shorter than the header", meta, len(b))
		}
		switch v := binary.LittleEndian.Uint32(b[8:]); {
		case v > spVersion:
			return nil, fmt.Errorf("%s: savepoint format version %d is newer than this strand reads (%d)", meta, v, spVersion)
		case v < 1:
			return nil, fmt.Errorf("%s: corrupt: savepoint format version %d, which no strand writes", meta, v)
		}
		// The checkpoint decoder checks the rest of the header and body.
		b = bytes.Clone(b)
		copy(b, magic)
		binary.LittleEndian.PutUint32(b[8:], version)
	} else if len(b) >= 8 {
		return nil, fmt.Errorf("%s: not a savepoint metadata file (magic %q)", meta, b[:8])
	}
	md, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", meta, err)
	}
	if md.Kind != Savepoint {
		return nil, fmt.Errorf("%s: holds a %v, not a savepoint", meta, md.Kind)
	}
	for _, f := range spFiles(md) {
		// A plain name cannot leave the directory; dots inside it (a uid
		// may hold them) are no way out.
		if !validName(f.Path) || f.Path == metadataName {
			return nil, fmt.Errorf("%s: state file %q is not a plain name", meta, f.Path)
		}
		if err := verifyFile(filepath.Join(dir, f.Path), f); err != nil {
			return nil, err
		}
	}
	return md, nil
}

// errMissing is verifyFile's error for a state file that is not there.
var errMissing = errors.New("missing")

// verifyFile checks the file at path against ref: an error wrapping
// errMissing or state.ErrCorrupt when the file is not there or not ref's,
// any other error when it could not be read.
func verifyFile(path string, ref state.FileRef) error {
	f, err := os.Open(path)
	if errors.Is(err, iofs.ErrNotExist) {
		return fmt.Errorf("%s: %w", path, errMissing)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	ref.Path = path
	return ref.Verify(f)
}

// OpenData opens a savepoint's state file for reading, checking its size
// and checksum first. A file that is missing or not the one the savepoint
// recorded is refused with an error wrapping ErrSavepoint; an error
// reading it is returned as it is: it is not the savepoint's fault, and a
// restart, which takes ErrSavepoint for a refusal it cannot cure, may
// read the file.
func OpenData(dir string, ref state.FileRef) (io.ReadCloser, error) {
	path := filepath.Join(dir, ref.Path)
	if err := verifyFile(path, ref); errors.Is(err, errMissing) || errors.Is(err, state.ErrCorrupt) {
		return nil, fmt.Errorf("%w: %w", ErrSavepoint, err)
	} else if err != nil {
		return nil, fmt.Errorf("checkpoint: savepoint: %w", err)
	}
	return os.Open(path)
}
