package state

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/memseg"
)

// TestWriteSSTOverOlderLevels: an ingested write-back (writeSST) overrides
// what the store holds below it, in L6 (compacted) and in the memtable
// (an earlier write-back in a batch, not flushed): its tombstones hide
// the older values and its values replace them, as read through the
// indexed batch, in the store, and in a checkpoint snapshotted right
// after the ingestion and restored from its upload.
func TestWriteSSTOverOlderLevels(t *testing.T) {
	fs := vfs.NewMem()
	st := openStore(t, fs, "/store")
	const uid, name = "op", "rows"
	w := st.NewIndexedBatch()
	model := map[string]string{}
	for p := range 40 {
		for k := range 20 {
			key := fmt.Sprintf("%02d:%02d", p, k)
			w.Set(uid, 0, name, []byte(key), []byte("L6"))
			model[key] = "L6"
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := st.db.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := st.db.Compact(context.Background(), []byte{0}, []byte{0xff}, false); err != nil {
		t.Fatal(err)
	}
	mem, err := memseg.NewManager(1<<20, 4096)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCache(st, w, mem, 1<<20, uid, 0, 0, name)
	defer c.Release()
	change := func(round string, p int) {
		t.Helper()
		prefix := fmt.Appendf(nil, "%02d:", p)
		if err := c.Scan(0, 0, prefix, func([]byte, []byte) error { return nil }); err != nil {
			t.Fatal(err)
		}
		for k := range 22 {
			key := fmt.Sprintf("%02d:%02d", p, k)
			var err error
			if (k+p)%3 == 0 {
				err = c.Delete(0, 0, []byte(key), len(prefix))
				delete(model, key)
			} else {
				err = c.Set(0, 0, []byte(key), len(prefix), []byte(round))
				model[key] = round
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	// A write-back in a batch: it stays in the memtable.
	for p := range 20 {
		change("mem", p)
	}
	if err := c.WriteBack(); err != nil {
		t.Fatal(err)
	}
	// An ingested one over both.
	c.ingestAt = 1
	before := st.db.Metrics().Ingest.Count
	for p := range 40 {
		change("sst", p)
	}
	if err := c.WriteBack(); err != nil {
		t.Fatal(err)
	}
	if st.db.Metrics().Ingest.Count == before {
		t.Fatal("the write-back ingested no SST")
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	read := func(scan func(fn ScanFunc) error) map[string]string {
		got := map[string]string{}
		if err := scan(func(_ uint16, _ string, key, value []byte) error {
			got[string(key)] = string(value)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := read(func(fn ScanFunc) error { return st.Scan(uid, 0, 0, name, fn) }); !maps.Equal(got, model) {
		t.Fatalf("store holds %v\nwant %v", got, model)
	}
	for key, v := range model {
		got, ok, err := w.Get(uid, 0, name, []byte(key))
		if err != nil || !ok || !bytes.Equal(got, []byte(v)) {
			t.Fatalf("indexed batch reads %s = %q %t %v, want %q", key, got, ok, err, v)
		}
	}
	r := restored(t, fs, st, "/restore")
	defer r.Close()
	if got := read(func(fn ScanFunc) error { return r.Scan(uid, 0, 0, name, fn) }); !maps.Equal(got, model) {
		t.Fatalf("checkpoint holds %v\nwant %v", got, model)
	}
}
