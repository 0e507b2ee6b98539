package checkpoint

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/strandsql/strand/state"
)

// writeTestSavepoint writes a complete savepoint of one operator subtask
// under parent and returns its directory.
func writeTestSavepoint(t *testing.T, parent string) string {
	t.Helper()
	return writeSavepointOf(t, parent, "agg")
}

// writeSavepointOf writes a complete savepoint of one subtask of operator
// uid under parent and returns its directory.
func writeSavepointOf(t *testing.T, parent, uid string) string {
	t.Helper()
	tmp, final, err := NewSavepointDir(parent, "job123456")
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("strandkv\x01\x00\x00\x00")
	name := uid + "-0.state" // as exec names it
	if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ref := state.FileRef{Path: name, Name: name, Size: int64(len(data)), CRC32C: crc32.Checksum(data, castagnoli)}
	md := &Metadata{ID: 3, Job: "q_1", Operators: []OperatorState{{UID: uid, Fingerprint: "f", MaxParallelism: 128,
		Subtasks: []SubtaskState{{KeyGroupHi: 127, Data: &ref}}}}}
	if err := WriteSavepoint(tmp, final, md); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSavepoint(final); err != nil {
		t.Fatal(err)
	}
	return final
}

// TestLoadSavepointBadVersion: a _metadata whose format version is not
// one this strand writes (0 never was; a flipped bit makes it) is refused.
func TestLoadSavepointBadVersion(t *testing.T) {
	for _, v := range []uint32{0, spVersion + 1} {
		dir := writeTestSavepoint(t, t.TempDir())
		meta := filepath.Join(dir, metadataName)
		b, err := os.ReadFile(meta)
		if err != nil {
			t.Fatal(err)
		}
		binary.LittleEndian.PutUint32(b[8:], v)
		if err := os.WriteFile(meta, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = LoadSavepoint(dir)
		if !errors.Is(err, ErrSavepoint) || !strings.Contains(err.Error(), meta) || !strings.Contains(err.Error(), "version") {
			t.Errorf("version %d: err = %v, want it refused naming %s", v, err, meta)
		}
	}
}

// TestSavepointOfDottedUID: a uid may hold dots ('a..b' is a valid UID
// hint), and the savepoint it names a state file after restores.
func TestSavepointOfDottedUID(t *testing.T) {
	writeSavepointOf(t, t.TempDir(), "per_user..v2")
}

// TestOpenDataReadError checks that OpenData refuses a missing state file
// with ErrSavepoint, which a restore marks permanent, but not one it
// fails to read (a directory's read fails with EISDIR, as a disk's with
// EIO): a restart may read it.
func TestOpenDataReadError(t *testing.T) {
	dir := t.TempDir()
	ref := state.FileRef{Path: "agg-0.state", Name: "agg-0.state", Size: 12}
	if _, err := OpenData(dir, ref); !errors.Is(err, ErrSavepoint) {
		t.Fatalf("OpenData of a missing file: %v, want ErrSavepoint", err)
	}
	if err := os.Mkdir(filepath.Join(dir, ref.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := OpenData(dir, ref)
	if err == nil || errors.Is(err, ErrSavepoint) {
		t.Fatalf("OpenData of an unreadable file: %v, want a read error that does not wrap ErrSavepoint", err)
	}
	if !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("OpenData of an unreadable file: %v, want its cause EISDIR kept", err)
	}
}
