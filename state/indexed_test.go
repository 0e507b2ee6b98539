package state

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestIndexedBatchReadsItsWrites: Get and ScanPrefix see the batch's own
// uncommitted writes over the store's committed entries, and stay inside
// the prefix, the key group and the state name.
func TestIndexedBatchReadsItsWrites(t *testing.T) {
	st, err := Open(vfs.NewMem(), "s")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := st.NewIndexedBatch()
	b.Set("op", 1, "l", []byte("ka"), []byte("1"))
	b.Set("op", 1, "l", []byte("kb"), []byte("2"))
	b.Set("op", 2, "l", []byte("kc"), []byte("other group"))
	b.Set("op", 1, "r", []byte("kd"), []byte("other name"))
	b.Set("op", 1, "l", []byte("x"), []byte("other prefix"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Set("op", 1, "l", []byte("kb"), []byte("2'"))
	b.Set("op", 1, "l", []byte("kz"), []byte("3"))
	b.Delete("op", 1, "l", []byte("ka"))
	if v, ok, err := b.Get("op", 1, "l", []byte("kb")); err != nil || !ok || string(v) != "2'" {
		t.Fatalf("Get kb: %q %v %v", v, ok, err)
	}
	if _, ok, err := b.Get("op", 1, "l", []byte("ka")); err != nil || ok {
		t.Fatalf("Get of a deleted key: %v %v", ok, err)
	}
	var got []string
	err = b.ScanPrefix("op", 1, "l", []byte("k"), func(k, v []byte) error {
		got = append(got, fmt.Sprintf("%s=%s", k, v))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"kb=2'", "kz=3"}; !slices.Equal(got, want) {
		t.Fatalf("scan %v, want %v", got, want)
	}
}
