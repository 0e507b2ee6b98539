package connector

import (
	"fmt"
	"testing"
)

// TestGenerateBids checks that GenerateBids makes the bids the table's
// readers make, field by field, in event order, and only the fields asked
// for.
func TestGenerateBids(t *testing.T) {
	tab := nexTable("bid", "events.num", "20000", "seed", "7")
	want := readNex(t, tab, 2, 1000)
	var got []string
	err := GenerateBids(tab.Options, []string{"auction", "bidder", "price", "channel", "url", "DATETIME", "extra"}, 777, func(b *Bids) error {
		for i := 0; i < b.Len; i++ {
			got = append(got, fmt.Sprint([]int64{b.Auction[i], b.Bidder[i], b.Price[i], b.DateTime[i]},
				[]string{string(b.Channel.At(i)), string(b.URL.At(i)), string(b.Extra.At(i))}))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d bids, want %d", len(got), len(want))
	}
	for i, r := range want {
		w := fmt.Sprint([]int64{r.int("auction"), r.int("bidder"), r.int("price"), r.int("dateTime")},
			[]string{r.str("channel"), r.str("url"), r.str("extra")})
		if got[i] != w {
			t.Fatalf("bid %d:\n got %s\nwant %s", i, got[i], w)
		}
	}

	n := 0
	err = GenerateBids(tab.Options, []string{"bidder"}, 4096, func(b *Bids) error {
		if len(b.Bidder) != b.Len || b.Auction != nil || b.Extra.Data != nil {
			return fmt.Errorf("fields not asked for were made")
		}
		n += b.Len
		return nil
	})
	if err != nil || n != len(want) {
		t.Fatalf("bidder only: %d bids, %v", n, err)
	}
	if err := GenerateBids(map[string]string{}, []string{"bidder"}, 10, func(*Bids) error { return nil }); err == nil {
		t.Error("an unbounded table was accepted")
	}
	if err := GenerateBids(tab.Options, []string{"nosuch"}, 10, func(*Bids) error { return nil }); err == nil {
		t.Error("an unknown field was accepted")
	}
}
