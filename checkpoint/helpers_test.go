package checkpoint

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/state"
)

const (
	uid    = "window-agg"
	maxPar = 128
)

// data is the expected keyed state of one operator: key group, state name
// and key to value.
type data map[string]string

func dkey(kg uint16, name string, key []byte) string {
	return fmt.Sprintf("%03d/%s/%x", kg, name, key)
}

// keyOf is the user key of row i: big-endian, so rows sort by i.
func keyOf(i uint64) []byte { return binary.BigEndian.AppendUint64(nil, i) }

// valueOf is 16 bytes that differ for every row and version and do not
// compress, so that file sizes reflect the number of rows.
func valueOf(i, version uint64) []byte {
	x := i*0x9e3779b97f4a7c15 + version*0xbf58476d1ce4e5b9 + 1
	x ^= x >> 31
	y := x * 0x94d049bb133111eb
	y ^= y >> 29
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, x), y)
}

// subtask is one operator subtask: its Store, its key-group range and the
// data it should hold.
type subtask struct {
	store  *state.Store
	lo, hi uint16
	want   data
}

// set writes rows to the subtask's store and model.
func (s *subtask) set(t *testing.T, kg uint16, name string, rows map[uint64][]byte) {
	t.Helper()
	b := s.store.NewBatch()
	for _, i := range slices.Sorted(maps.Keys(rows)) {
		b.Set(uid, kg, name, keyOf(i), rows[i])
		s.want[dkey(kg, name, keyOf(i))] = string(rows[i])
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

func openSubtask(t *testing.T, fs vfs.FS, dir string, lo, hi uint16) *subtask {
	t.Helper()
	s, err := state.Open(fs, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &subtask{store: s, lo: lo, hi: hi, want: data{}}
}

// checkpoint snapshots and uploads every subtask into st and returns the
// metadata that the coordinator would write, with the data each subtask
// held at the snapshot.
func checkpoint(t *testing.T, st *Storage, id int64, subs []*subtask) (*Metadata, []data) {
	t.Helper()
	md := &Metadata{
		ID: id, Kind: Periodic, Job: "test", CreatedUnixMs: 1700000000000 + id,
		Sources: []SourceState{{UID: "src", Splits: []SplitState{{ID: "a.csv", Pos: 100 * id, Line: id, Watermark: 5000 * id}}}},
		Sinks:   []SinkState{{UID: "sink", Pending: []PendingFile{pendingFile(t, id)}}},
	}
	op := OperatorState{UID: uid, Fingerprint: "v1", MaxParallelism: maxPar}
	var snaps []data
	for i, s := range subs {
		sn, err := s.store.Snapshot(id)
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, maps.Clone(s.want))
		h, err := sn.Upload(st)
		if err != nil {
			t.Fatal(err)
		}
		op.Subtasks = append(op.Subtasks, SubtaskState{
			Index: i, KeyGroupLo: int(s.lo), KeyGroupHi: int(s.hi), Handle: h, Inline: []byte{byte(id), byte(i)},
		})
	}
	md.Operators = []OperatorState{op}
	return md, snaps
}

// restored reads key groups [lo, hi] of every handle in md from src.
func restored(t *testing.T, fs vfs.FS, src state.Source, md *Metadata, lo, hi uint16) data {
	t.Helper()
	got := data{}
	for i, sub := range md.Operators[0].Subtasks {
		if sub.KeyGroupHi < int(lo) || sub.KeyGroupLo > int(hi) {
			continue
		}
		r, err := state.OpenHandle(fs, src, sub.Handle, fmt.Sprintf("/restore/%d", i))
		if err != nil {
			t.Fatal(err)
		}
		err = r.Scan(uid, lo, hi, "", func(kg uint16, name string, key, value []byte) error {
			if int(kg) < sub.KeyGroupLo || int(kg) > sub.KeyGroupHi {
				return fmt.Errorf("handle of subtask %d holds key group %d outside [%d, %d]", i, kg, sub.KeyGroupLo, sub.KeyGroupHi)
			}
			got[dkey(kg, name, key)] = string(value)
			return nil
		})
		if cerr := r.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return got
}

// only keeps the entries of want in key groups [lo, hi].
func only(want data, lo, hi uint16) data {
	out := data{}
	for k, v := range want {
		var kg uint16
		fmt.Sscanf(k, "%03d/", &kg)
		if kg >= lo && kg <= hi {
			out[k] = v
		}
	}
	return out
}

func sameData(t *testing.T, what string, got, want data) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d entries, want %d", what, len(got), len(want))
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Fatalf("%s: %s = %x (present %v), want %x", what, k, g, ok, v)
		}
	}
}

func openStorage(t *testing.T, fs vfs.FS, root string) *Storage {
	t.Helper()
	st, err := OpenStorage(fs, root)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func write(t *testing.T, st *Storage, md *Metadata) {
	t.Helper()
	if err := st.Write(md); err != nil {
		t.Fatal(err)
	}
}

// pendingFile writes a hidden sink file for checkpoint id in a temporary
// directory and returns it as pending, with its size and checksum.
func pendingFile(t *testing.T, id int64) PendingFile {
	t.Helper()
	dir := t.TempDir()
	body := []byte(strings.Repeat(fmt.Sprintf("row of checkpoint %d\n", id), 10))
	tmp := filepath.Join(dir, fmt.Sprintf(".part-%d.inprogress", id))
	if err := os.WriteFile(tmp, body, 0o644); err != nil {
		t.Fatal(err)
	}
	return PendingFile{Subtask: 0, Tmp: tmp, Final: filepath.Join(dir, fmt.Sprintf("part-%d", id)),
		Size: int64(len(body)), CRC32C: crc32.Checksum(body, castagnoli)}
}
