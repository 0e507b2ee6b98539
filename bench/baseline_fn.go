package bench

import (
	"bytes"
	"hash/maphash"

	"github.com/strandsql/strand/exec/connector"
)

// Baselines of the queries that exercise scalar functions: q14 (CASE on
// HOUR, COUNT_CHAR), q21 (LOWER and REGEXP_EXTRACT of the channel id) and
// q22 (SPLIT_INDEX of the URL), each a plain loop with the function
// written out by hand.

func init() {
	baselines["q14"] = baselineQ14
	baselines["q21"] = baselineQ21
	baselines["q22"] = baselineQ22
}

func strHash(h uint64, s []byte) uint64 { return mix(h, maphash.Bytes(strSeed, s)) }

// baselineQ14 keeps bids whose price in euros (price * 0.908) is in
// (1,000,000, 50,000,000), with the time of day of the bid and the count
// of 'c' in extra.
func baselineQ14(opts map[string]string) (digest, error) {
	var d digest
	day, night, other := []byte("dayTime"), []byte("nightTime"), []byte("otherTime")
	err := connector.GenerateBids(opts, []string{"auction", "bidder", "price", "dateTime", "extra"}, baselineBatch, func(b *connector.Bids) error {
		for i := 0; i < b.Len; i++ {
			euros := b.Price[i] * 908 // DECIMAL(23, 3)
			if euros <= 1_000_000_000 || euros >= 50_000_000_000 {
				continue
			}
			ts := b.DateTime[i]
			hour := (ts%86_400_000 + 86_400_000) % 86_400_000 / 3_600_000
			kind := other
			switch {
			case hour >= 8 && hour <= 18:
				kind = day
			case hour <= 6 || hour >= 20:
				kind = night
			}
			h := mix(mix(rowSeed, uint64(b.Auction[i])), uint64(b.Bidder[i]))
			h = mix(mix(h, uint64(euros)), uint64(euros>>63))
			h = mix(strHash(h, kind), uint64(ts))
			extra := b.Extra.At(i)
			d.sum += mix(strHash(h, extra), uint64(bytes.Count(extra, []byte("c"))))
			d.rows++
		}
		return nil
	})
	return d, err
}

// channelID is REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2): the
// value of the first channel_id parameter at the start of url or after
// an '&'.
func channelID(url []byte) ([]byte, bool) {
	key := []byte("channel_id=")
	for at := 0; ; {
		k := bytes.Index(url[at:], key)
		if k < 0 {
			return nil, false
		}
		k += at
		if k == 0 || url[k-1] == '&' {
			v := url[k+len(key):]
			if e := bytes.IndexByte(v, '&'); e >= 0 {
				v = v[:e]
			}
			return v, true
		}
		at = k + 1
	}
}

// baselineQ21 maps the four known channels to ids and takes the others'
// from the URL, keeping the bids that have one.
func baselineQ21(opts map[string]string) (digest, error) {
	var d digest
	known := [][]byte{[]byte("apple"), []byte("google"), []byte("facebook"), []byte("baidu")}
	ids := [][]byte{[]byte("0"), []byte("1"), []byte("2"), []byte("3")}
	var lower []byte
	err := connector.GenerateBids(opts, []string{"auction", "bidder", "price", "channel", "url"}, baselineBatch, func(b *connector.Bids) error {
		for i := 0; i < b.Len; i++ {
			ch := b.Channel.At(i)
			lower = append(lower[:0], ch...)
			for k, c := range lower {
				if c >= 'A' && c <= 'Z' {
					lower[k] = c + 32
				}
			}
			var id []byte
			ok := false
			for k, n := range known {
				if bytes.Equal(lower, n) {
					id, ok = ids[k], true
					break
				}
			}
			if !ok {
				if id, ok = channelID(b.URL.At(i)); !ok {
					continue
				}
			}
			h := mix(mix(mix(rowSeed, uint64(b.Auction[i])), uint64(b.Bidder[i])), uint64(b.Price[i]))
			d.sum += strHash(strHash(h, ch), id)
			d.rows++
		}
		return nil
	})
	return d, err
}

// splitPart is SPLIT_INDEX(s, '/', k).
func splitPart(s []byte, k int) ([]byte, bool) {
	if len(s) == 0 {
		return nil, false
	}
	for ; k > 0; k-- {
		j := bytes.IndexByte(s, '/')
		if j < 0 {
			return nil, false
		}
		s = s[j+1:]
	}
	if j := bytes.IndexByte(s, '/'); j >= 0 {
		s = s[:j]
	}
	return s, true
}

// baselineQ22 splits the URL at '/' and takes its parts 3, 4 and 5.
func baselineQ22(opts map[string]string) (digest, error) {
	var d digest
	err := connector.GenerateBids(opts, []string{"auction", "bidder", "price", "channel", "url"}, baselineBatch, func(b *connector.Bids) error {
		for i := 0; i < b.Len; i++ {
			h := mix(mix(mix(rowSeed, uint64(b.Auction[i])), uint64(b.Bidder[i])), uint64(b.Price[i]))
			h = strHash(h, b.Channel.At(i))
			for k := 3; k <= 5; k++ {
				if p, ok := splitPart(b.URL.At(i), k); ok {
					h = strHash(h, p)
				} else {
					h = mix(h, nullHash)
				}
			}
			d.sum += h
			d.rows++
		}
		return nil
	})
	return d, err
}
