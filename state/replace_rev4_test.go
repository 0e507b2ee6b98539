package state

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Rev4 review tests of the excise span of replacing commits (everything
// in replace.go): it must hold every key a store can hold, whatever its
// uid, key group, state name and user key.

// TestRev4ReplaceExtremeKeys runs the replace model over keys at the
// edges of the key space: uids whose uvarint length starts with 0x7f,
// 0x80 and 0xff (lengths 127, 128 and 255) and that are made of 0xff
// bytes, names of 0xff bytes, key group 0xffff and user keys of 0xff.
func TestRev4ReplaceExtremeKeys(t *testing.T) {
	uids, names, kgs, keys := reviewUIDs, reviewNames, reviewKGs, reviewKeys
	t.Cleanup(func() { reviewUIDs, reviewNames, reviewKGs, reviewKeys = uids, names, kgs, keys })
	reviewUIDs = []string{"agg", strings.Repeat("\xff", 127), strings.Repeat("\xff", 128), strings.Repeat("\xff", 255), ""}
	reviewNames = []string{"p", "\xff", strings.Repeat("\xff", 200)}
	reviewKGs = []uint16{0, 0xffff}
	reviewKeys = []string{"", "\x00", strings.Repeat("\xff", 20)}
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { replaceModelRun(t, seed) })
	}
}

// TestRev4ReplaceEmptyOverMemtable: a replacing commit that leaves
// nothing (replaceWith's Excise alone) over writes still in the
// memtable, with a range delete among them, removes them, in the store
// and in its snapshot's restore.
func TestRev4ReplaceEmptyOverMemtable(t *testing.T) {
	for _, flush := range []bool{false, true} {
		t.Run(fmt.Sprint(flush), func(t *testing.T) {
			fs := vfs.NewMem()
			s := openIngesting(t, fs, "st")
			dst := newTarget(t, fs, "/storage")
			w := s.NewSorted()
			w.Set("agg", 1, "p", []byte("a"), []byte("1"))
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			b := s.NewBatch()
			b.Set("agg", 2, "s", []byte("b"), []byte("2"))
			b.Set("agg", 9, "s", []byte("c"), []byte("3"))
			b.DeletePrefix("agg", 9, "s", nil)
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			if flush {
				if err := s.db.Flush(); err != nil {
					t.Fatal(err)
				}
			}
			w.Replace("agg", "")
			sn, err := s.SnapshotDelta(1, w)
			if err != nil {
				t.Fatal(err)
			}
			m := replaceModel{}
			m.check(t, s, "after an empty replacing commit")
			r := uploadRestore(t, fs, dst, sn, "restore")
			defer r.Close()
			m.check(t, r, "restored")
			// Later writes stay.
			w.Set("agg", 3, "p", []byte("d"), []byte("4"))
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			m.set("agg", 3, "p", "d", "4")
			m.check(t, s, "after the next commit")
		})
	}
}
