package bench

import (
	"errors"
	"hash/maphash"
	"io"
	"maps"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/connector"
	"github.com/strandsql/strand/types"
)

// The baselines of the join queries (q3, q5, q8, q20) read the generator's
// auctions and persons through its source, split after split, as Arrow
// batches of the columns they need, and join them in Go maps: the result
// of a join does not depend on the order of its inputs' rows.

// events calls fn with every batch of the nexmark table of kind
// (person, auction or bid) with the named columns, under the bid table's
// options (the three tables share seed, rate and event count).
func events(opts map[string]string, kind string, cols []string, fn func(arrow.RecordBatch) error) error {
	o := maps.Clone(opts)
	o["connector"], o["event-type"] = "nexmark", kind
	var schema types.Schema
	for _, c := range cols {
		t := types.TBigInt
		switch c {
		case "name", "city", "state", "itemName", "description", "extra", "channel", "url":
			t = types.TString
		case "dateTime", "expires":
			t = types.TTimestamp
		}
		schema = append(schema, types.Field{Name: c, Type: t})
	}
	src, err := connector.NewSource(connector.Table{Name: kind, Schema: schema, Options: o})
	if err != nil {
		return err
	}
	splits, err := src.Splits()
	if err != nil {
		return err
	}
	for _, sp := range splits {
		r, err := src.Open(sp, exec.Offset{}, exec.ReadOptions{BatchSize: baselineBatch, Alloc: memory.DefaultAllocator, Metrics: &exec.Metrics{}})
		if err != nil {
			return err
		}
		for {
			b, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				r.Close()
				return err
			}
			err = fn(b)
			b.Release()
			if err != nil {
				r.Close()
				return err
			}
		}
		if err := r.Close(); err != nil {
			return err
		}
	}
	return nil
}

func i64(b arrow.RecordBatch, c int) []int64 { return b.Column(c).(*array.Int64).Int64Values() }
func str(b arrow.RecordBatch, c int) *array.String {
	return b.Column(c).(*array.String)
}
func ts(b arrow.RecordBatch, c int) []arrow.Timestamp {
	return b.Column(c).(*array.Timestamp).TimestampValues()
}
func hs(s string) uint64 { return maphash.String(strSeed, s) }

// baselineQ3 joins the auctions of category 10 with their sellers in
// Oregon, Idaho or California: (name, city, state, auction id).
func baselineQ3(opts map[string]string) (digest, error) {
	type person struct{ name, city, state uint64 }
	persons := map[int64]person{}
	err := events(opts, "person", []string{"id", "name", "city", "state"}, func(b arrow.RecordBatch) error {
		id, name, city, state := i64(b, 0), str(b, 1), str(b, 2), str(b, 3)
		for i := range id {
			if s := state.Value(i); s == "OR" || s == "ID" || s == "CA" {
				persons[id[i]] = person{hs(name.Value(i)), hs(city.Value(i)), hs(s)}
			}
		}
		return nil
	})
	if err != nil {
		return digest{}, err
	}
	var d digest
	err = events(opts, "auction", []string{"id", "seller", "category"}, func(b arrow.RecordBatch) error {
		id, seller, cat := i64(b, 0), i64(b, 1), i64(b, 2)
		for i := range id {
			p, ok := persons[seller[i]]
			if cat[i] != 10 || !ok {
				continue
			}
			d.sum += mix(mix(mix(mix(rowSeed, p.name), p.city), p.state), uint64(id[i]))
			d.rows++
		}
		return nil
	})
	return d, err
}

// baselineQ8 joins the persons and the sellers of each 10-second window
// of dateTime: a person (id, name) of a window whose id sold in it, with
// the window's start.
func baselineQ8(opts map[string]string) (digest, error) {
	type sold struct{ seller, start int64 }
	sellers := map[sold]bool{}
	err := events(opts, "auction", []string{"seller", "dateTime"}, func(b arrow.RecordBatch) error {
		seller, at := i64(b, 0), ts(b, 1)
		for i := range seller {
			sellers[sold{seller[i], int64(at[i]) - int64(at[i])%windowSize}] = true
		}
		return nil
	})
	if err != nil {
		return digest{}, err
	}
	type group struct {
		id, start int64
		name      string
	}
	groups := map[group]bool{}
	err = events(opts, "person", []string{"id", "name", "dateTime"}, func(b arrow.RecordBatch) error {
		id, name, at := i64(b, 0), str(b, 1), ts(b, 2)
		for i := range id {
			groups[group{id[i], int64(at[i]) - int64(at[i])%windowSize, name.Value(i)}] = true
		}
		return nil
	})
	var d digest
	for g := range groups {
		if sellers[sold{g.id, g.start}] {
			d.sum += mix(mix(mix(rowSeed, uint64(g.id)), hs(g.name)), uint64(g.start))
			d.rows++
		}
	}
	return d, err
}

// baselineQ20 joins each bid with its auction when the auction is of
// category 10: the bid's columns, then the auction's but its id.
func baselineQ20(opts map[string]string) (digest, error) {
	type auction struct{ item, desc, initial, reserve, at, expires, seller, category, extra uint64 }
	auctions := map[int64]auction{}
	acols := []string{"id", "itemName", "description", "initialBid", "reserve", "dateTime", "expires", "seller", "category", "extra"}
	err := events(opts, "auction", acols, func(b arrow.RecordBatch) error {
		id, item, desc, initial, reserve, at, expires, seller, cat, extra := i64(b, 0), str(b, 1), str(b, 2), i64(b, 3), i64(b, 4), ts(b, 5), ts(b, 6), i64(b, 7), i64(b, 8), str(b, 9)
		for i := range id {
			if cat[i] == 10 {
				auctions[id[i]] = auction{hs(item.Value(i)), hs(desc.Value(i)), uint64(initial[i]), uint64(reserve[i]), uint64(at[i]), uint64(expires[i]), uint64(seller[i]), uint64(cat[i]), hs(extra.Value(i))}
			}
		}
		return nil
	})
	if err != nil {
		return digest{}, err
	}
	var d digest
	err = events(opts, "bid", []string{"auction", "bidder", "price", "channel", "url", "dateTime", "extra"}, func(b arrow.RecordBatch) error {
		id, bidder, price, channel, url, at, extra := i64(b, 0), i64(b, 1), i64(b, 2), str(b, 3), str(b, 4), ts(b, 5), str(b, 6)
		for i := range id {
			a, ok := auctions[id[i]]
			if !ok {
				continue
			}
			h := mix(mix(mix(rowSeed, uint64(id[i])), uint64(bidder[i])), uint64(price[i]))
			h = mix(mix(mix(mix(h, hs(channel.Value(i))), hs(url.Value(i))), uint64(at[i])), hs(extra.Value(i)))
			for _, v := range []uint64{a.item, a.desc, a.initial, a.reserve, a.at, a.expires, a.seller, a.category, a.extra} {
				h = mix(h, v)
			}
			d.sum += h
			d.rows++
		}
		return nil
	})
	return d, err
}

// The windows of q5: 10 seconds long, one starting every 2 seconds.
const (
	hopSize  = 10_000 // ms
	hopSlide = 2_000  // ms
)

// baselineQ5 finds the hot items of each hopping window of dateTime: the
// auctions with as many bids in the window as the most bid-on auction of
// that window, (auction, bids). Bids come in time order, so a window is
// complete, and digested, when a bid at or after its end comes.
func baselineQ5(opts map[string]string) (digest, error) {
	var d digest
	counts := map[int64]map[int64]int64{} // window start -> auction -> bids
	flush := func(before int64) {
		for start, byAuction := range counts {
			if start+hopSize > before {
				continue
			}
			top := int64(0)
			for _, n := range byAuction {
				top = max(top, n)
			}
			for auction, n := range byAuction {
				if n >= top {
					d.sum += mix(mix(rowSeed, uint64(auction)), uint64(n))
					d.rows++
				}
			}
			delete(counts, start)
		}
	}
	next := int64(math.MinInt64) // the end of the earliest window open
	err := connector.GenerateBids(opts, []string{"auction", "dateTime"}, baselineBatch, func(b *connector.Bids) error {
		for i, ts := range b.DateTime {
			if ts >= next {
				flush(ts)
				next = ts - ts%hopSlide + hopSlide
			}
			for start := ts - ts%hopSlide; start > ts-hopSize; start -= hopSlide {
				w := counts[start]
				if w == nil {
					w = map[int64]int64{}
					counts[start] = w
				}
				w[b.Auction[i]]++
			}
		}
		return nil
	})
	flush(math.MaxInt64)
	return d, err
}
