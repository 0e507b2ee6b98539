package expr

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"
)

var links = cols(column{tS, []any{"a=1&channel_id=99&b", "channel_id=7", "xchannel_id=8", nil, "foothebar"}})

func TestRegexpExtract(t *testing.T) {
	s := c(0, tS)
	ex := func(p string, g int32) Expr { return call(RegexpExtract, tS, s, str(p), i32(g)) }
	check(t, ex("(&|^)channel_id=([^&]*)", 2), links, "99", "7", nil, nil, nil)
	check(t, ex("foo(.*?)(bar)", 2), links, nil, nil, nil, nil, "bar")
	check(t, call(RegexpExtract, tS, s, str("[0-9]+")), links, "1", "7", "8", nil, nil)
	check(t, ex("(x)?channel", 1), links, nil, nil, "x", nil, nil) // a group that took no part is NULL
	// A pattern from the data: a bad one gives NULL, as in Flink.
	ps := cols(column{tS, []any{"abc", "abc", "abc"}}, column{tS, []any{"b", "(", "(?=b)"}})
	check(t, call(RegexpExtract, tS, c(0, tS), c(1, tS)), ps, "b", nil, nil)
	if _, err := Compile(ex("(a", 1), schemaOf(links)); err == nil {
		t.Error("a bad literal pattern compiled")
	}
}

func TestRegexpMatchReplace(t *testing.T) {
	s := c(0, tS)
	check(t, call(Regexp, tB, s, str("^channel")), links, false, true, false, nil, false)
	check(t, call(Regexp, tB, s, str("")), links, false, false, false, nil, false) // Flink: an empty pattern matches nothing
	check(t, call(RegexpReplace, tS, s, str("([a-z]+)_id"), str("<$1>")), links, "a=1&<channel>=99&b", "<channel>=7", "<xchannel>=8", nil, "foothebar")
	check(t, call(RegexpReplace, tS, s, str("oo|ar"), str("")), links, "a=1&channel_id=99&b", "channel_id=7", "xchannel_id=8", nil, "ftheb")
	check(t, call(RegexpReplace, tS, s, str("(\\d)"), str("\\$$1$10")), links, "a=$110&channel_id=$990$990&b", "channel_id=$770", "xchannel_id=$880", nil, "foothebar")
}

// TestRegexWindow: starting the search a bounded distance before the
// required literal, and the simple matcher, find the same first match as
// Go's engine searching all of s.
func TestRegexWindow(t *testing.T) {
	pats := []string{"(&|^)channel_id=([^&]*)", "a{0,3}bc", "(x|yy)?zz", "^ab", "[a-c]b.c", "(a|^b)c",
		"channel_id=([^&]*)", "(&|^)id=([0-9]+)", "[0-9]+", "a[bc]?d", "(x|y)z*$", "^(ab|a)c", "((a)|b)+", "(c+)(h)", "a.c", "x{2,3}y"}
	rng := rand.New(rand.NewPCG(1, 2))
	alpha := []byte("abcxyz&^=_channel_id019\xff")
	simple := map[bool]int{}
	defer func() {
		if simple[true] < 8 {
			t.Errorf("only %d of the patterns use the simple matcher", simple[true])
		}
	}()
	for _, p := range pats {
		r, err := compileRegex(p)
		if err != nil {
			t.Fatal(err)
		}
		simple[r.simple != nil]++
		re := regexp.MustCompile(p)
		for range 2000 {
			s := make([]byte, rng.IntN(30))
			for i := range s {
				s[i] = alpha[rng.IntN(len(alpha))]
			}
			if got, want := r.submatch(s), re.FindSubmatchIndex(s); !slices.Equal(got, want) {
				t.Fatalf("%q on %q: %v, want %v", p, s, got, want)
			}
		}
	}
}

func FuzzRegexWindow(f *testing.F) {
	f.Add("(&|^)channel_id=([^&]*)", "a=1&channel_id=2")
	f.Add("x?ab", "xxab")
	f.Fuzz(func(t *testing.T, p, s string) {
		r, err := compileRegex(p)
		if err != nil {
			return
		}
		if got, want := r.submatch([]byte(s)), r.re.FindSubmatchIndex([]byte(s)); !slices.Equal(got, want) {
			t.Fatalf("%q on %q: %v, want %v", p, s, got, want)
		}
	})
}

func TestSimpleShapes(t *testing.T) {
	for p, want := range map[string]bool{
		"(&|^)channel_id=([^&]*)": true, "[0-9]+": true, "id=(\\d+)&": true,
		"[a-z]*z": false, // the repetition would have to give back
		"a*?b":    false, // not greedy
		"(?i)abc": false,
		"(ab)*":   false, // a repeated group
	} {
		r, err := compileRegex(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.simple != nil; got != want {
			t.Errorf("%q: simple %v, want %v", p, got, want)
		}
	}
}
