package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

var urls = cols(column{tS, []any{"https://www.nexmark.com/abc/def/item.htm", "a//b", "", nil, "żółw 🐢 x"}})

func TestSplitIndex(t *testing.T) {
	s := c(0, tS)
	f := func(sep string, k int32) Expr { return call(SplitIndex, tS, s, str(sep), i32(k)) }
	check(t, f("/", 3), urls, "abc", nil, nil, nil, nil)
	check(t, f("/", 1), urls, "", "", nil, nil, nil)
	check(t, f("/", 0), urls, "https:", "a", nil, nil, "żółw 🐢 x")
	check(t, f("/", -1), urls, nil, nil, nil, nil, nil)
	check(t, f("", 1), urls, nil, nil, nil, nil, "🐢") // an empty separator splits at white space
}

func TestStringFunctions(t *testing.T) {
	s := c(0, tS)
	check(t, call(Replace, tS, s, str("/"), str("|")), urls, "https:||www.nexmark.com|abc|def|item.htm", "a||b", "", nil, "żółw 🐢 x")
	check(t, call(Replace, tS, str("abc"), str(""), str("-")), urls, "-a-b-c-", "-a-b-c-", "-a-b-c-", "-a-b-c-", "-a-b-c-")
	check(t, call(Reverse, tS, s), urls, "mth.meti/fed/cba/moc.kramxen.www//:sptth", "b//a", "", nil, "x 🐢 włóż")
	check(t, call(Initcap, tS, str("hello wORLD 9x _ab")), one, "Hello World 9x _Ab")
	check(t, call(Lpad, tS, s, i32(6), str("xy")), urls, "https:", "xya//b", "xyxyxy", nil, "żółw 🐢")
	check(t, call(Rpad, tS, s, i32(6), str("xy")), urls, "https:", "a//bxy", "xyxyxy", nil, "żółw 🐢")
	check(t, call(Lpad, tS, s, i32(-1), str("xy")), urls, nil, nil, nil, nil, nil)
	check(t, call(Rpad, tS, s, i32(3), str("")), urls, nil, nil, nil, nil, nil)
	check(t, call(Md5, tS, s), urls, "929c9c4db20d4e1abca0ae6bad20b7f5", "32e9eecebee81949778d8679ab5a0978", "d41d8cd98f00b204e9800998ecf8427e", nil, "f0dfb7a0b20586c23123cecf2268e6fc")
	check(t, call(Sha256, tS, str("abc")), one, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
}

func TestCountChar(t *testing.T) {
	s := c(0, tS)
	check(t, call(CountChar, tL, s, str("/")), urls, int64(5), int64(2), int64(0), int64(0), int64(0))
	check(t, call(CountChar, tL, s, str("ó")), urls, int64(0), int64(0), int64(0), int64(0), int64(1))
	check(t, call(CountChar, tL, s, null(tS)), urls, nil, nil, nil, nil, nil)
	chars := cols(column{tS, []any{"aab", "aab", nil}}, column{tS, []any{"a", "", "a"}})
	if _, err := run(t, call(CountChar, tL, c(0, tS), c(1, tS)), chars); err == nil {
		t.Error("an empty character did not fail")
	}
}

func TestUUID(t *testing.T) {
	// Not through check: UUIDs differ from run to run.
	p, err := Compile(call(UUID, tS), schemaOf(urls))
	if err != nil {
		t.Fatal(err)
	}
	b := makeBatch(t, memory.DefaultAllocator, urls)
	defer b.Release()
	arr, err := p.Eval(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Release()
	got := valuesOf(t, arr, tS)
	if len(got) != 5 {
		t.Fatalf("%d UUIDs for 5 rows", len(got))
	}
	seen := map[string]bool{}
	for _, v := range got {
		u := v.(string)
		if len(u) != 36 || u[14] != '4' || u[8] != '-' || seen[u] {
			t.Errorf("bad or repeated UUID %q", u)
		}
		seen[u] = true
	}
}

func TestGreatestLeast(t *testing.T) {
	ns := cols(column{tL, []any{int64(1), int64(5), nil}}, column{tL, []any{int64(3), int64(2), int64(1)}})
	check(t, call(Greatest, tL, c(0, tL), c(1, tL), i64(2)), ns, int64(3), int64(5), nil)
	check(t, call(Least, tL, c(0, tL), c(1, tL), i64(2)), ns, int64(1), int64(2), nil)
	check(t, call(Greatest, tS, c(0, tS), str("b")), urls, "https://www.nexmark.com/abc/def/item.htm", "b", "b", nil, "żółw 🐢 x")
	check(t, call(Least, tDec(4, 2), dec("1.50", 4, 2), dec("-1.25", 4, 2)), ns, "-1.25", "-1.25", "-1.25")
}

var one = cols(column{tL, []any{int64(1)}})
