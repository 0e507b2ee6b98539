package checkpoint

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestPendingFileVerified: a checkpoint whose pending sink file was
// truncated, changed or lost is refused naming the file, and Latest falls
// back to the one before; a pending file already committed (renamed to its
// final name) verifies there.
func TestPendingFileVerified(t *testing.T) {
	damage := map[string]func(p PendingFile) error{
		"truncated": func(p PendingFile) error { return os.Truncate(p.Tmp, p.Size-1) },
		"checksum mismatch": func(p PendingFile) error {
			b, err := os.ReadFile(p.Tmp)
			if err != nil {
				return err
			}
			b[3] ^= 1
			return os.WriteFile(p.Tmp, b, 0o644)
		},
		"missing": func(p PendingFile) error { return os.Remove(p.Tmp) },
	}
	for what, hurt := range damage {
		t.Run(what, func(t *testing.T) {
			local, fs := vfs.NewMem(), vfs.NewMem()
			st := openStorage(t, fs, "/ck")
			subs := []*subtask{openSubtask(t, local, "/w/0", 0, 127)}
			change(t, subs[0], 10, 1)
			md1, _ := checkpoint(t, st, 1, subs)
			write(t, st, md1)
			// Checkpoint 1 committed: its file is visible, and verifies there.
			p1 := md1.Sinks[0].Pending[0]
			if err := os.Rename(p1.Tmp, p1.Final); err != nil {
				t.Fatal(err)
			}
			change(t, subs[0], 10, 2)
			md2, _ := checkpoint(t, st, 2, subs)
			write(t, st, md2)
			if _, err := st.Load(2); err != nil {
				t.Fatalf("undamaged: %v", err)
			}
			p2 := md2.Sinks[0].Pending[0]
			if err := hurt(p2); err != nil {
				t.Fatal(err)
			}
			_, err := st.Load(2)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), p2.Tmp) || !strings.Contains(err.Error(), what) {
				t.Fatalf("Load = %v, want ErrCorrupt naming %s, %s", err, p2.Tmp, what)
			}
			var skipped []int64
			md, err := st.Latest(func(n int64, err error) { skipped = append(skipped, n) })
			if err != nil || md == nil || md.ID != 1 || len(skipped) != 1 || skipped[0] != 2 {
				t.Fatalf("Latest = %v, %v, skipped %v; want 1, skipped [2]", md, err, skipped)
			}
		})
	}
}

// TestMetadataVersion1: metadata of format version 1, whose pending files
// carry no size or checksum, is still read, and its pending files are not
// checked; a version this strand does not know is refused.
func TestMetadataVersion1(t *testing.T) {
	md := &Metadata{ID: 3, Job: "j", Sinks: []SinkState{{UID: "k", Pending: []PendingFile{{Tmp: "/nowhere/.a", Final: "/nowhere/a"}}}}}
	b, err := encode(md)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(b[8:], 1)
	fs := vfs.NewMem()
	st := openStorage(t, fs, "/ck")
	if err := fs.MkdirAll("/ck/chk-3", 0o755); err != nil {
		t.Fatal(err)
	}
	writeAll(t, fs, "/ck/chk-3/_metadata", b)
	got, err := st.Load(3)
	if err != nil || got.Sinks[0].Pending[0].Final != "/nowhere/a" {
		t.Fatalf("version 1: Load = %v, %v", got, err)
	}
	binary.LittleEndian.PutUint32(b[8:], version+1)
	binary.LittleEndian.PutUint32(b[16:], crc32.Checksum(b[headerSize:], castagnoli))
	writeAll(t, fs, "/ck/chk-3/_metadata", b)
	if _, err := st.Load(3); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "format version 4, this strand reads versions 1 to 3") {
		t.Fatalf("version %d: Load = %v", version+1, err)
	}
}
