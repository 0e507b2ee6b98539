package checkpoint

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

func readAll(t *testing.T, fs vfs.FS, path string) []byte {
	t.Helper()
	f, err := fs.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeAll(t *testing.T, fs vfs.FS, path string, b []byte) {
	t.Helper()
	f, err := fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(slices.Clone(b)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCorruption damages each file of checkpoint 2 in turn (its _metadata,
// every shared and every owned file): truncated, one byte flipped (or, for
// an empty file, one byte added), deleted. Load must refuse checkpoint 2
// with ErrCorrupt naming the file and the damage, and Latest must report
// it and fall back to checkpoint 1, or report both when the file is an
// SST that 1 shares.
func TestCorruption(t *testing.T) { corruption(t, vfs.NewMem(), "/ck") }

// corruption is TestCorruption on storage at root on fs.
func corruption(t *testing.T, fs vfs.FS, root string) {
	local := vfs.NewMem()
	st := openStorage(t, fs, root)
	subs := []*subtask{openSubtask(t, local, "/w/0", 0, 63), openSubtask(t, local, "/w/1", 64, 127)}
	change(t, subs[0], 50, 1)
	change(t, subs[1], 50, 1)
	md1, snaps1 := checkpoint(t, st, 1, subs)
	write(t, st, md1)
	change(t, subs[0], 10, 2) // subtask 1 unchanged: 2 shares its SSTs with 1
	md2, _ := checkpoint(t, st, 2, subs)
	write(t, st, md2)

	in1 := refsOf(md1)
	paths := []string{chkDir(2) + "/" + metadataName}
	for p := range refsOf(md2) {
		paths = append(paths, p)
	}
	slices.Sort(paths[1:])
	var shared, owned, both int
	for _, p := range paths[1:] {
		if strings.HasPrefix(p, sharedDir+"/") {
			shared++
		} else {
			owned++
		}
		if in1[p] {
			both++
		}
	}
	if shared < 2 || owned < 2 || both == 0 || both == shared {
		t.Fatalf("want checkpoint 2 to have shared files of its own and shared with 1, and owned files: %d shared (%d with 1), %d owned", shared, both, owned)
	}

	type damage struct {
		name   string
		reason string
		apply  func(b []byte) []byte // nil result: delete the file
	}
	damages := []damage{
		{"truncate", "truncated", func(b []byte) []byte {
			if len(b) == 0 {
				return b // cannot be truncated
			}
			return b[:len(b)/2]
		}},
		{"flip", "checksum mismatch", func(b []byte) []byte {
			if len(b) == 0 {
				return []byte{0} // longer instead
			}
			b = slices.Clone(b)
			b[len(b)*2/3] ^= 0x10
			return b
		}},
		{"delete", "missing", func([]byte) []byte { return nil }},
	}
	for _, p := range paths {
		orig := readAll(t, fs, st.path(p))
		for _, d := range damages {
			bad := d.apply(orig)
			if bad != nil && len(bad) == len(orig) && string(bad) == string(orig) {
				continue
			}
			reason := d.reason
			if bad == nil {
				if err := fs.Remove(st.path(p)); err != nil {
					t.Fatal(err)
				}
			} else {
				writeAll(t, fs, st.path(p), bad)
				if len(orig) == 0 {
					reason = "longer"
				}
			}

			_, err := st.Load(2)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), reason) {
				t.Fatalf("%s %s: Load(2) = %v; want ErrCorrupt naming the file, %q", d.name, p, err, reason)
			}
			var reported []int64
			md, err := st.Latest(func(n int64, err error) {
				if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), p) {
					t.Errorf("%s %s: Latest reported checkpoint %d: %v", d.name, p, n, err)
				}
				reported = append(reported, n)
			})
			if err != nil {
				t.Fatalf("%s %s: Latest: %v", d.name, p, err)
			}
			if in1[p] {
				if md != nil || !slices.Equal(reported, []int64{2, 1}) {
					t.Fatalf("%s %s (shared with 1): Latest = %v, reported %v; want none, [2 1]", d.name, p, md, reported)
				}
			} else {
				if md == nil || md.ID != 1 || !slices.Equal(reported, []int64{2}) {
					t.Fatalf("%s %s: Latest = %v, reported %v; want 1, [2]", d.name, p, md, reported)
				}
				for i, s := range subs {
					sameData(t, "fallback to 1", restored(t, local, st, md, s.lo, s.hi), snaps1[i])
				}
			}
			writeAll(t, fs, st.path(p), orig)
		}
	}
	if md, err := st.Latest(nil); err != nil || md == nil || md.ID != 2 {
		t.Fatalf("repaired: Latest = %v, %v; want 2", md, err)
	}
}

func TestMetadataDecode(t *testing.T) {
	md := &Metadata{ID: 7, Kind: Savepoint, Job: "j", Finished: true,
		Operators: []OperatorState{{UID: "u", Fingerprint: "f", MaxParallelism: 128, Subtasks: []SubtaskState{{Index: 1, KeyGroupLo: 64, KeyGroupHi: 127, Inline: []byte{0, 1}}}}},
		Sources:   []SourceState{{UID: "s", Splits: []SplitState{{ID: "x", Pos: 1, Line: 2, Watermark: -3}}}},
		Sinks:     []SinkState{{UID: "k", Pending: []PendingFile{{Subtask: 2, Tmp: "a", Final: "b"}}}},
	}
	b, err := encode(md)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := encode(got); string(g) != string(b) {
		t.Fatalf("round trip changed the metadata:\n%s\n%s", g, b)
	}
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "truncated"},
		{"header", b[:headerSize-1], "truncated"},
		{"body", b[:len(b)-1], "truncated"},
		{"trailing", append(slices.Clone(b), 0), "after the body"},
		{"magic", append([]byte("strandxx"), b[8:]...), "magic"},
		{"version", append(append(slices.Clone(b[:8]), 4, 0, 0, 0), b[12:]...), "format version 4"},
	} {
		if _, err := decode(c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: decode = %v, want %q", c.name, err, c.want)
		}
	}
}
