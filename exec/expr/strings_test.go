package expr

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

var texts = cols(column{tS, []any{"äöü日本", "Hello", "", nil, "ǅx"}})

func TestUpperLower(t *testing.T) {
	x := c(0, tS)
	check(t, call(Upper, tS, x), texts, "ÄÖÜ日本", "HELLO", "", nil, "ǄX")
	check(t, call(Lower, tS, x), texts, "äöü日本", "hello", "", nil, "ǆx")
	check(t, call(Upper, tS, str("abc")), texts, "ABC", "ABC", "ABC", "ABC", "ABC")
	check(t, call(Upper, tS, x), cols(column{tS, []any{"a\xffb"}}), "A\xffB")
}

func TestCharLength(t *testing.T) {
	check(t, call(CharLength, tI, c(0, tS)), texts, int32(5), int32(5), int32(0), nil, int32(2))
	check(t, call(CharLength, tL, c(0, tS)), texts, int64(5), int64(5), int64(0), nil, int64(2))
}

func TestSubstring(t *testing.T) {
	x := c(0, tS)
	sub := func(args ...Expr) Expr { return call(Substring, tS, append([]Expr{x}, args...)...) }
	check(t, sub(i32(2), i32(3)), texts, "öü日", "ell", "", nil, "x")
	check(t, sub(i32(4)), texts, "日本", "lo", "", nil, "")
	check(t, sub(i32(0), i32(2)), texts, "äö", "He", "", nil, "ǅx") // Flink: position 0 is 1
	check(t, sub(i32(-2)), texts, "日本", "lo", "", nil, "ǅx")
	check(t, sub(i32(-9), i32(2)), texts, "", "", "", nil, "")
	check(t, sub(i32(2), i32(-1)), texts, nil, nil, nil, nil, nil) // Flink: negative length is NULL
	check(t, sub(i32(9)), texts, "", "", "", nil, "")
	check(t, sub(i64(1), i64(100)), texts, "äöü日本", "Hello", "", nil, "ǅx")
	check(t, sub(i32(1), null(tI)), texts, nil, nil, nil, nil, nil)
	ps := cols(column{tS, []any{"abcdef", "abcdef", nil}}, column{tI, []any{int32(2), nil, int32(1)}})
	check(t, call(Substring, tS, c(0, tS), c(1, tI), i32(2)), ps, "bc", nil, nil)
}

func TestTrimConcatPosition(t *testing.T) {
	cs := cols(column{tS, []any{"  a b  ", "xxhixx", "日本日", nil, ""}})
	x := c(0, tS)
	check(t, call(Trim, tS, str("BOTH"), str(" "), x), cs, "a b", "xxhixx", "日本日", nil, "")
	check(t, call(Trim, tS, str("LEADING"), str("x"), x), cs, "  a b  ", "hixx", "日本日", nil, "")
	check(t, call(Trim, tS, str("TRAILING"), str("x"), x), cs, "  a b  ", "xxhi", "日本日", nil, "")
	check(t, call(Trim, tS, str("BOTH"), str("日"), x), cs, "  a b  ", "xxhixx", "本", nil, "")
	check(t, call(Concat, tS, x, str("|"), x), cs, "  a b  |  a b  ", "xxhixx|xxhixx", "日本日|日本日", nil, "|")
	check(t, call(Concat, tS, x, null(tS)), cs, nil, nil, nil, nil, nil)
	check(t, call(Position, tI, str("b"), x), cs, int32(5), int32(0), int32(0), nil, int32(0))
	check(t, call(Position, tI, str("本"), x), cs, int32(0), int32(0), int32(2), nil, int32(0))
	check(t, call(Position, tI, str(""), x), cs, int32(1), int32(1), int32(1), nil, int32(1))
	if _, err := Compile(call(Trim, tS, str("MIDDLE"), str(" "), x), schemaOf(cs)); err == nil {
		t.Error("TRIM with a bad mode compiled")
	}
}

func TestLike(t *testing.T) {
	cs := cols(column{tS, []any{"apple", "banana", "a", "", nil, "日本語", "a_b", "a%b", "axb", "ab\\c"}})
	x := c(0, tS)
	like := func(p string) Expr { return call(Like, tB, x, str(p)) }
	check(t, like("a%"), cs, true, false, true, false, nil, false, true, true, true, true)
	check(t, like("%a"), cs, false, true, true, false, nil, false, false, false, false, false)
	check(t, like("%an%"), cs, false, true, false, false, nil, false, false, false, false, false)
	check(t, like("apple"), cs, true, false, false, false, nil, false, false, false, false, false)
	check(t, like("%"), cs, true, true, true, true, nil, true, true, true, true, true)
	check(t, like("_"), cs, false, false, true, false, nil, false, false, false, false, false)
	check(t, like("日_語"), cs, false, false, false, false, nil, true, false, false, false, false)
	check(t, like("a\\_b"), cs, false, false, false, false, nil, false, true, false, false, false)
	check(t, like("a\\%b"), cs, false, false, false, false, nil, false, false, true, false, false)
	check(t, like("%b\\\\c"), cs, false, false, false, false, nil, false, false, false, false, true)
	check(t, like("_%_a"), cs, false, true, false, false, nil, false, false, false, false, false)
	check(t, like("%a_a%"), cs, false, true, false, false, nil, false, false, false, false, false)
	check(t, call(Like, tB, x, str("a!_b"), str("!")), cs, false, false, false, false, nil, false, true, false, false, false)
	if _, err := Compile(like("a\\b"), schemaOf(cs)); err == nil {
		t.Error("bad escape compiled")
	}
	// Patterns from the data.
	ps := cols(column{tS, []any{"abc", "abc", "abc", nil, "x"}}, column{tS, []any{"a%", "a%", "%d", "a", nil}})
	check(t, call(Like, tB, c(0, tS), c(1, tS)), ps, true, true, false, nil, nil)
}

// The LIKE matcher against a regexp translation, over many patterns and
// strings from a small alphabet.
func TestLikeAgainstRegexp(t *testing.T) {
	alpha := []string{"a", "b", "é", "%", "_"}
	var pats []string
	var gen func(p string, n int)
	gen = func(p string, n int) {
		pats = append(pats, p)
		if n == 0 {
			return
		}
		for _, a := range alpha {
			gen(p+a, n-1)
		}
	}
	gen("", 4)
	var subjects []string
	var sgen func(s string, n int)
	sgen = func(s string, n int) {
		subjects = append(subjects, s)
		if n == 0 {
			return
		}
		for _, a := range alpha[:3] {
			sgen(s+a, n-1)
		}
	}
	sgen("", 4)
	for _, p := range pats {
		pat, err := compilePattern([]byte(p), '\\')
		if err != nil {
			t.Fatal(err)
		}
		var re strings.Builder
		re.WriteString("^(?s:")
		for _, r := range p {
			switch r {
			case '%':
				re.WriteString(".*")
			case '_':
				re.WriteString(".")
			default:
				re.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		re.WriteString(")$")
		rx := regexp.MustCompile(re.String())
		for _, s := range subjects {
			if got, want := pat.match([]byte(s)), rx.MatchString(s); got != want {
				t.Fatalf("%q LIKE %q = %v, want %v", s, p, got, want)
			}
		}
	}
}

// Short literals are matched as words read from the data buffer, also at
// its very start and end; compare with the strings package.
func TestShortLiteralMatching(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var vals []any
	for i := 0; i < 300; i++ {
		if i%17 == 0 {
			vals = append(vals, nil)
			continue
		}
		b := make([]byte, r.Intn(11))
		for k := range b {
			b[k] = "abé"[r.Intn(3)]
		}
		vals = append(vals, string(b))
	}
	vals[1], vals[len(vals)-1] = "", "ab" // an empty string first, a short one last
	cs := cols(column{tS, vals})
	x := c(0, tS)
	for _, lit := range []string{"a", "b", "ab", "ba", "aab", "abab", "aaaaaaaa", "abababab", "ababababa", "\xa9"} {
		for _, tc := range []struct {
			pat  string
			want func(s string) bool
		}{
			{lit + "%", func(s string) bool { return strings.HasPrefix(s, lit) }},
			{"%" + lit, func(s string) bool { return strings.HasSuffix(s, lit) }},
			{lit, func(s string) bool { return s == lit }},
		} {
			got, err := run(t, call(Like, tB, x, str(tc.pat)), cs)
			if err != nil {
				t.Fatal(err)
			}
			eq, err := run(t, call(Eq, tB, x, str(lit)), cs)
			if err != nil {
				t.Fatal(err)
			}
			ne, err := run(t, call(Ne, tB, str(lit), x), cs)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if v == nil {
					if got[i] != nil || eq[i] != nil || ne[i] != nil {
						t.Fatalf("row %d: NULL gave %v %v %v", i, got[i], eq[i], ne[i])
					}
					continue
				}
				s := v.(string)
				if got[i] != tc.want(s) {
					t.Fatalf("%q LIKE %q = %v", s, tc.pat, got[i])
				}
				if eq[i] != (s == lit) || ne[i] != (s != lit) {
					t.Fatalf("%q = %q: %v, <>: %v", s, lit, eq[i], ne[i])
				}
			}
		}
	}
}
