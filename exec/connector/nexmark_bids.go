package connector

import (
	"errors"
	"fmt"
	"maps"

	"github.com/strandsql/strand/types"
)

// Bids are a batch of generated bids as plain Go slices, for programs that
// use the Nexmark generator without the engine (strand bench's hand-written
// baselines). Only the fields asked for are filled; the others are empty.
type Bids struct {
	Len                              int
	Auction, Bidder, Price, DateTime []int64
	Channel, URL, Extra              Strings
}

// Strings are byte strings packed in one slice: string i is
// Data[Offs[i]:Offs[i+1]].
type Strings struct {
	Offs []int32
	Data []byte
}

// At returns string i.
func (s *Strings) At(i int) []byte { return s.Data[s.Offs[i]:s.Offs[i+1]] }

// GenerateBids makes the bids of a nexmark table with the given WITH
// options (those of CREATE TABLE; 'event-type' may be left out), with the
// values a bid table's reader makes, in event order rather than split by
// split, and calls fn with each batch of at most batchSize bids. fields
// names the bid columns to make (Flink's names, case-insensitive). The
// table must be bounded ('events.num'). The batch, and its slices, are
// reused once fn returns.
func GenerateBids(options map[string]string, fields []string, batchSize int, fn func(*Bids) error) error {
	opts := maps.Clone(options)
	opts["connector"], opts["event-type"] = "nexmark", "bid"
	var schema types.Schema
	for _, f := range fields {
		nf, ok := nexFieldOf(nexBid, f)
		if !ok {
			return fmt.Errorf("nexmark: no bid field %q (fields: %v)", f, nexColumns(nexBid))
		}
		t := types.TBigInt
		switch nexFields[nf].t {
		case nString:
			t = types.TString
		case nTimestamp:
			t = types.TTimestamp
		}
		schema = append(schema, types.Field{Name: nexFields[nf].name, Type: t})
	}
	c, err := parseNexmark(Table{Name: "bid", Schema: schema, Options: opts})
	if err != nil {
		return err
	}
	if c.total <= 0 {
		return errors.New("nexmark: GenerateBids needs a bounded table ('events.num')")
	}
	g := newNexGen(c)
	b := &Bids{}
	var ev nexEvents
	lo, hi := c.span(nexBid)
	for e := int64(0); ; e++ {
		for o := lo; o < hi; o++ {
			n := e*c.tp + o
			if n >= c.total {
				if len(ev.n) == 0 {
					return nil
				}
				return g.bids(&ev, b, fn)
			}
			ev.n = append(ev.n, n)
			ev.ep = append(ev.ep, e)
			ev.of = append(ev.of, o)
			ev.ts = append(ev.ts, c.nexTime(n))
			if len(ev.n) == batchSize {
				if err := g.bids(&ev, b, fn); err != nil {
					return err
				}
			}
		}
	}
}

// bids fills b with the fields of events ev that the table declares,
// hands it to fn and empties ev.
func (g *nexGen) bids(ev *nexEvents, b *Bids, fn func(*Bids) error) error {
	n := len(ev.n)
	b.Len = n
	for _, f := range g.cfg.fields {
		if dst := b.ints(f); dst != nil {
			*dst = resize(*dst, n)
			g.ints(f, ev, *dst)
			continue
		}
		s := b.strings(f)
		s.Offs, s.Data = append(s.Offs[:0], 0), s.Data[:0]
		for _, n := range ev.n {
			s.Data = g.bidStr(f, n, s.Data)
			s.Offs = append(s.Offs, int32(len(s.Data)))
		}
	}
	ev.n, ev.ep, ev.of, ev.ts = ev.n[:0], ev.ep[:0], ev.of[:0], ev.ts[:0]
	return fn(b)
}

// ints returns the slice of an integer or timestamp field, nil for others.
func (b *Bids) ints(f nexField) *[]int64 {
	switch f {
	case bAuction:
		return &b.Auction
	case bBidder:
		return &b.Bidder
	case bPrice:
		return &b.Price
	case bDateTime:
		return &b.DateTime
	}
	return nil
}

// strings returns the strings of a string field.
func (b *Bids) strings(f nexField) *Strings {
	switch f {
	case bChannel:
		return &b.Channel
	case bURL:
		return &b.URL
	}
	return &b.Extra
}

// resize returns s with length n, reusing its array when it is big enough.
func resize(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n)
	}
	return s[:n]
}
