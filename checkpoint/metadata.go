package checkpoint

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/strandsql/strand/state"
)

// Metadata is the content of a checkpoint's _metadata file: everything a
// restore needs besides the state files themselves, and a reference to
// each of those.
type Metadata struct {
	ID            int64
	Kind          Kind
	Job           string
	CreatedUnixMs int64
	Operators     []OperatorState
	Sources       []SourceState
	Sinks         []SinkState
	// Finished is set on the final checkpoint of a job that consumed all
	// of its input: such a job is not resumed.
	Finished bool
	// StrandVersion is the version of strand that took a savepoint.
	StrandVersion string `json:",omitempty"`
	// Parallelism is the parallelism a savepoint was taken at (any
	// parallelism restores it).
	Parallelism int `json:",omitempty"`

	// version is the format version the metadata was read in.
	version uint32
}

// OperatorState is the state of one stateful operator, by subtask.
type OperatorState struct {
	UID string
	// Fingerprint identifies the operator's state schema; a restore refuses
	// state whose fingerprint differs from the new plan's (but for the
	// mark of exact float sums, exec's restore.go).
	Fingerprint    string
	MaxParallelism int
	Subtasks       []SubtaskState
}

// SubtaskState is the state of one subtask: the key groups it owned, its
// keyed state and its small non-keyed state.
type SubtaskState struct {
	Index                  int
	KeyGroupLo, KeyGroupHi int // inclusive
	Handle                 state.Handle
	Inline                 []byte // for example a window operator's watermark
	// Data is a savepoint's file of the subtask's entries, in strand's
	// own format (state.Export), instead of a Handle of Pebble files. Its
	// Path is relative to the savepoint directory.
	Data *state.FileRef `json:",omitempty"`
}

// SourceState is the read position of one source, by split.
type SourceState struct {
	UID    string
	Splits []SplitState
}

// SplitState is where a split's reading resumes: byte offset and line
// number (or generator sequence) of the next row, and the split's
// watermark, which decides which of its rows are late.
type SplitState struct {
	ID        string
	Pos, Line int64
	Watermark int64
	// State is the reader's own resume state (exec.Offset.State).
	State string `json:",omitempty"`
}

// SinkState lists the files a sink pre-committed at the barrier, which it
// renames into place once the checkpoint is complete, or on restore.
type SinkState struct {
	UID     string
	Pending []PendingFile
}

// PendingFile is one pre-committed sink file: hidden at Tmp until the
// checkpoint's commit renames it to Final. Size and CRC32C are its content
// at the barrier, checked before a restore commits it. With Txn it is a
// pre-committed transaction of an external system instead (a Kafka sink's),
// and the other fields but Subtask are unused. With Progress it is no file
// either, but what the subtask had reached at the barrier.
type PendingFile struct {
	Subtask    int
	Tmp, Final string
	Size       int64
	CRC32C     uint32
	Txn        *PendingTxn   `json:",omitempty"`
	Progress   *SinkProgress `json:",omitempty"`
}

// SinkProgress is one sink subtask's progress at a barrier, of Of
// subtasks: its watermark. A partitioned filesystem sink commits a
// partition once every subtask's watermark has passed its time.
type SinkProgress struct {
	Watermark int64
	Of        int
}

// PendingTxn is a transaction flushed at the barrier and left open, which
// the checkpoint's commit ends with a commit: its transactional id and the
// producer id and epoch that own it.
type PendingTxn struct {
	ID       string
	Producer int64
	Epoch    int16
}

// verify checks the pending file where it is: still hidden, or already
// committed. The error names the file. A transaction has nothing here to
// check; its broker decides.
func (p PendingFile) verify() error {
	if p.Txn != nil || p.Progress != nil {
		return nil
	}
	path := p.Tmp
	f, err := os.Open(path)
	if errors.Is(err, iofs.ErrNotExist) {
		path = p.Final
		f, err = os.Open(path)
	}
	if errors.Is(err, iofs.ErrNotExist) {
		return corrupt(p.Tmp, errors.New("pending sink file missing, and not committed either"))
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return state.FileRef{Path: path, Size: p.Size, CRC32C: p.CRC32C}.Verify(f)
}

// files returns every file reference of md.
func (md *Metadata) files() []state.FileRef {
	var fs []state.FileRef
	for _, op := range md.Operators {
		for _, st := range op.Subtasks {
			fs = append(fs, st.Handle.Files...)
		}
	}
	return fs
}

// checkRef reports whether f is where checkpoint id may keep a file: a
// shared file directly in shared/, or an owned one directly in chk-<id>/.
func checkRef(f state.FileRef, id int64) error {
	if f.Shared {
		if !isShared(f.Path) {
			return fmt.Errorf("shared file %q is not in %s/", f.Path, sharedDir)
		}
		return nil
	}
	if name, ok := strings.CutPrefix(f.Path, chkDir(id)+"/"); !ok || !validName(name) || name == metadataName {
		return fmt.Errorf("owned file %q is not in %s/", f.Path, chkDir(id))
	}
	return nil
}

// The _metadata file is a fixed header and a JSON body:
//
//	magic "strandck" | format version uint32 | body length uint32 | CRC32C of body uint32 | body
//
// with integers little-endian.
//
// Version 2 added the size and CRC32C of pending sink files. Version 1 is
// still read: its pending files are taken as they are, unverified.
// Version 3 added delta files to a handle (state's delta-<n>.sst, which a
// restore ingests in order over the files before them): a reader of
// version 2 would take them for stray files and restore the state
// without them, so it must refuse version 3. Metadata without a delta is
// written as version 2, which older strands read.
const (
	magic      = "strandck"
	version    = 3
	headerSize = len(magic) + 12
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func encode(md *Metadata) ([]byte, error) {
	body, err := json.Marshal(md)
	if err != nil {
		return nil, err
	}
	v := uint32(2)
	if slices.ContainsFunc(md.files(), state.FileRef.IsDelta) {
		v = version
	}
	b := make([]byte, headerSize, headerSize+len(body))
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[8:], v)
	binary.LittleEndian.PutUint32(b[12:], uint32(len(body)))
	binary.LittleEndian.PutUint32(b[16:], crc32.Checksum(body, castagnoli))
	return append(b, body...), nil
}

// decode parses a _metadata file. Its errors say what is wrong, for
// corrupt to wrap.
func decode(b []byte) (*Metadata, error) {
	if len(b) < headerSize {
		return nil, fmt.Errorf("truncated: %d bytes, shorter than the header", len(b))
	}
	if string(b[:8]) != magic {
		return nil, fmt.Errorf("not a checkpoint metadata file (magic %q)", b[:8])
	}
	v := binary.LittleEndian.Uint32(b[8:])
	if v < 1 || v > version {
		return nil, fmt.Errorf("format version %d, this strand reads versions 1 to %d", v, version)
	}
	n, body := int64(binary.LittleEndian.Uint32(b[12:])), b[headerSize:]
	if int64(len(body)) < n {
		return nil, fmt.Errorf("truncated: %d body bytes, want %d", len(body), n)
	}
	if int64(len(body)) > n {
		return nil, fmt.Errorf("%d bytes after the body", int64(len(body))-n)
	}
	if got, want := crc32.Checksum(body, castagnoli), binary.LittleEndian.Uint32(b[16:]); got != want {
		return nil, fmt.Errorf("checksum mismatch: crc32c %08x, want %08x", got, want)
	}
	md := &Metadata{version: v}
	if err := json.Unmarshal(body, md); err != nil {
		return nil, fmt.Errorf("bad body: %v", err)
	}
	return md, nil
}

func corrupt(path string, err error) error {
	return fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
}

// Write completes checkpoint md.ID by writing its _metadata, last, after
// checking that every file md references is in storage with its size.
// Files are synced as they are put; Write syncs the directories that hold
// their entries, then writes _metadata to a temporary file, syncs it,
// renames it into place and syncs chk-<n>/. Only then is the checkpoint
// complete, and it survives a power loss from the moment Write returns
// nil. After an error nothing in storage looks complete that is not; if
// the error came from the final sync, the checkpoint may yet be complete,
// and correct, which is why recovery goes by Latest, not by what Write
// returned.
//
// IDs must increase: Write fails if checkpoint md.ID or a newer one is
// complete. After a restart, NextID gives an ID above every earlier one.
// Shared files must be in shared/ and owned ones in chk-<md.ID>/, as
// uploads to s put them.
func (s *Storage) Write(md *Metadata) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.write(md); err != nil {
		return fmt.Errorf("checkpoint: write %d in %s: %w", md.ID, s.root, err)
	}
	return nil
}

func (s *Storage) write(md *Metadata) error {
	if md.ID <= 0 {
		return errors.New("IDs start at 1")
	}
	ids, err := s.ids()
	if err != nil {
		return err
	}
	for _, n := range slices.Backward(ids) {
		if n < md.ID {
			break
		}
		if _, err := s.fs.Stat(s.path(chkDir(n) + "/" + metadataName)); err == nil {
			return fmt.Errorf("checkpoint %d is complete: IDs must increase", n)
		}
	}
	dir := chkDir(md.ID)
	meta := dir + "/" + metadataName
	for _, f := range md.files() {
		if err := checkRef(f, md.ID); err != nil {
			return err
		}
		st, err := s.fs.Stat(s.path(f.Path))
		if err := sizeIs(st, err, f); err != nil {
			return err
		}
	}
	b, err := encode(md)
	if err != nil {
		return err
	}
	if err := s.fs.MkdirAll(s.path(dir), 0o755); err != nil {
		return err
	}
	for _, d := range []string{s.path(sharedDir), s.path(dir), s.root} {
		if err := s.syncDir(d); err != nil {
			return err
		}
	}
	tmp := s.path(meta + ".tmp")
	if err := s.create(meta+".tmp", bytes.NewReader(b)); err != nil {
		return err
	}
	if err := s.fs.Rename(tmp, s.path(meta)); err != nil {
		_ = s.fs.Remove(tmp)
		return err
	}
	return s.syncDir(s.path(dir))
}

// sizeIs checks what a Stat of f's file returned against f: there, with
// f's size.
func sizeIs(st iofs.FileInfo, err error, f state.FileRef) error {
	if errors.Is(err, iofs.ErrNotExist) {
		return fmt.Errorf("%s: missing", f.Path)
	}
	if err != nil {
		return err
	}
	if st.Size() != f.Size {
		return fmt.Errorf("%s holds %d bytes, want %d", f.Path, st.Size(), f.Size)
	}
	return nil
}

// Load reads checkpoint n and verifies it before returning it: its
// _metadata (magic, version, checksum) and every file it references (size
// and CRC32C, read in full). An error that wraps ErrCorrupt names the file
// and what is wrong with it: missing (for _metadata: the checkpoint is
// incomplete), truncated, too long, checksum mismatch. Other errors are
// I/O errors that say nothing about the checkpoint.
func (s *Storage) Load(n int64) (*Metadata, error) {
	md, err := s.load(n)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %d in %s: %w", n, s.root, err)
	}
	return md, nil
}

func (s *Storage) load(n int64) (*Metadata, error) {
	md, err := s.readMetadata(n)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, f := range md.files() {
		if seen[f.Path] {
			continue
		}
		seen[f.Path] = true
		if err := s.verify(f); err != nil {
			return nil, err
		}
	}
	if md.version >= 2 {
		for _, sk := range md.Sinks {
			for _, p := range sk.Pending {
				if err := p.verify(); err != nil {
					return nil, err
				}
			}
		}
	}
	return md, nil
}

// readMetadata reads and checks chk-<n>/_metadata, not the files it
// references.
func (s *Storage) readMetadata(n int64) (*Metadata, error) {
	rel := chkDir(n) + "/" + metadataName
	f, err := s.fs.Open(s.path(rel))
	if errors.Is(err, iofs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s is missing", ErrIncomplete, rel)
	}
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	md, err := decode(b)
	if err != nil {
		return nil, corrupt(rel, err)
	}
	if md.ID != n {
		return nil, corrupt(rel, fmt.Errorf("holds checkpoint %d", md.ID))
	}
	for _, f := range md.files() {
		if err := checkRef(f, n); err != nil {
			return nil, corrupt(rel, err)
		}
	}
	return md, nil
}

func (s *Storage) verify(ref state.FileRef) error {
	f, err := s.fs.Open(s.path(ref.Path))
	if errors.Is(err, iofs.ErrNotExist) {
		return corrupt(ref.Path, errors.New("missing"))
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return ref.Verify(f)
}

// LoadPath is Load for the checkpoint at path: a chk-<n> directory or its
// _metadata, which --from-checkpoint names. The checkpoint may belong to
// another job's root; then the paths in the returned metadata are
// rewritten relative to s's root, so that s serves as the restore's Source
// all the same.
func (s *Storage) LoadPath(p string) (*Metadata, error) {
	dir := p
	if s.fs.PathBase(dir) == metadataName {
		dir = s.fs.PathDir(dir)
	}
	id, ok := parseChkDir(s.fs.PathBase(dir))
	if !ok {
		return nil, fmt.Errorf("checkpoint: %s is neither a checkpoint directory (%s<n>) nor its %s", p, chkPrefix, metadataName)
	}
	if _, err := s.fs.Stat(dir); errors.Is(err, iofs.ErrNotExist) {
		return nil, fmt.Errorf("checkpoint: %s does not exist", dir)
	}
	root := s.fs.PathDir(dir)
	if filepath.Clean(root) == filepath.Clean(s.root) {
		return s.Load(id)
	}
	rel, err := filepath.Rel(s.root, root)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %s cannot be read from %s: %w", p, s.root, err)
	}
	md, err := (&Storage{fs: s.fs, root: root}).Load(id)
	if err != nil {
		return nil, err
	}
	for i := range md.Operators {
		for j := range md.Operators[i].Subtasks {
			files := slices.Clone(md.Operators[i].Subtasks[j].Handle.Files)
			for k := range files {
				files[k].Path = path.Join(filepath.ToSlash(rel), files[k].Path)
			}
			md.Operators[i].Subtasks[j].Handle.Files = files
		}
	}
	return md, nil
}

// Newest returns the newest checkpoint whose _metadata reads, without
// verifying its files, or nil if there is none: what a restore would
// commit, for tidying up after a run.
func (s *Storage) Newest() (*Metadata, error) {
	ids, err := s.ids()
	if err != nil {
		return nil, err
	}
	for _, n := range slices.Backward(ids) {
		md, err := s.readMetadata(n)
		if err == nil {
			return md, nil
		}
		if !errors.Is(err, ErrCorrupt) {
			return nil, fmt.Errorf("checkpoint %d in %s: %w", n, s.root, err)
		}
	}
	return nil, nil
}

// Latest returns the newest checkpoint that Load accepts, or nil if there
// is none. It calls report, if not nil, with every newer checkpoint that
// it skipped because it is incomplete (an error wrapping ErrIncomplete) or
// corrupt (ErrCorrupt). Any other error stops it: a checkpoint that cannot
// be read now may be good, and falling back past it would lose its
// progress.
func (s *Storage) Latest(report func(n int64, err error)) (*Metadata, error) {
	ids, err := s.ids()
	if err != nil {
		return nil, err
	}
	for _, n := range slices.Backward(ids) {
		md, err := s.Load(n)
		if err == nil {
			return md, nil
		}
		if !errors.Is(err, ErrCorrupt) {
			return nil, err
		}
		if report != nil {
			report(n, err)
		}
	}
	return nil, nil
}
