package state

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestIterPrefix checks that an iterator sees exactly the keys of its key
// group, state name and prefix, in order, including a prefix ending in
// 0xff and neighbours that share a prefix of the name.
func TestIterPrefix(t *testing.T) {
	s := openStore(t, vfs.NewMem(), "db")
	b := s.NewBatch()
	want := []string{}
	for _, kg := range []uint16{6, 7, 8} {
		for _, name := range []string{"s", "ss", "p"} {
			for _, k := range []string{"\x01\xff", "\x01\xff\x00", "\x01\xff\xff", "\x02", "\x01\xfe\xff"} {
				b.Set("op", kg, name, []byte(k), []byte(fmt.Sprint(kg, name, k)))
				if kg == 7 && name == "s" && strings.HasPrefix(k, "\x01\xff") {
					want = append(want, k)
				}
			}
		}
	}
	b.Set("op2", 7, "s", []byte("\x01\xff"), nil)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	it, err := s.NewIter("op", 7, "s", []byte("\x01\xff"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.Value()
		if err != nil {
			t.Fatal(err)
		}
		if string(v) != fmt.Sprint(7, "s", string(it.Key())) {
			t.Errorf("value of %q is %q", it.Key(), v)
		}
		got = append(got, string(it.Key()))
	}
	// SeekGE stays within the prefix: to the key, past it, or nowhere.
	for _, c := range []struct{ seek, want string }{{"\x01\xff\x00", "\x01\xff\x00"}, {"\x01\xff\x01", "\x01\xff\xff"}, {"\x00", "\x01\xff"}, {"\x01\xff\xff\x00", ""}} {
		ok := it.SeekGE([]byte(c.seek))
		if ok != (c.want != "") || ok && string(it.Key()) != c.want {
			t.Errorf("SeekGE(%q): %v at %q, want %q", c.seek, ok, it.Key(), c.want)
		}
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if err := it.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("keys %q, want %q", got, want)
	}
}
