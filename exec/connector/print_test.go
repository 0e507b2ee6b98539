package connector

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/strandsql/strand/types"
)

func TestFormatRow(t *testing.T) {
	b := makeBatch(t, allTypes, allRows[:4])
	defer b.Release()
	want := []string{
		"+I[true, 1, 1099511627776, 1.5, 3.25, 12.345, hello, v, 2024-01-01, 2024-01-01 10:00:00.123, 2024-02-29 23:59:59.999, 14, 3600000]",
		`+I[false, -2147483648, -9223372036854775808, -0.0, NaN, -0.005, a,b "quoted" 'x', , 1970-01-01, 1969-12-31 23:59:59.999, 1970-01-01 00:00:00.000, -1, -1]`,
		"+I[null, null, null, null, null, null, null, null, null, null, null, null, null]",
		"+I[true, 2147483647, 9223372036854775807, Infinity, -Infinity, 999999999.999, héllo 世界 🎉\ttab, #hash, 9999-12-31, 0001-01-01 00:00:00.000, 2038-01-19 03:14:07.001, 0, 0]",
	}
	got := rowsOf(b)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d:\ngot  %s\nwant %s", i, got[i], want[i])
		}
	}
}

func TestPrintSink(t *testing.T) {
	var out bytes.Buffer
	s := types.Schema{{Name: "a", Type: types.TInt}, {Name: "s", Type: types.TString}}
	sink := must(NewSink(Table{Name: "p", Schema: s, Options: map[string]string{"connector": "print", "print-identifier": "out"}}, Env{Stdout: &out}))
	b := makeBatch(t, s, [][]any{{1, "x"}, {nil, nil}})
	defer b.Release()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		w := must(sink.Open(s, i, 8))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if err := w.Write(b); err != nil {
					t.Error(err)
				}
			}
			w.Close()
		}()
	}
	wg.Wait()
	ls := lines(out.String())
	if len(ls) != 8*50*2 {
		t.Fatalf("%d lines", len(ls))
	}
	for i, l := range ls {
		want := "out> +I[1, x]"
		if i%2 == 1 {
			want = "out> +I[null, null]"
		}
		if l != want {
			t.Fatalf("line %d: %q, want %q", i, l, want)
		}
	}
	if strings.Count(out.String(), "\n") != len(ls) {
		t.Fatal("line breaks")
	}
}

func TestBlackhole(t *testing.T) {
	sink := must(NewSink(Table{Options: map[string]string{"connector": "blackhole"}}, Env{}))
	w := must(sink.Open(allTypes, 0, 1))
	b := makeBatch(t, allTypes, allRows)
	defer b.Release()
	if err := w.Write(b); err != nil || w.Close() != nil || w.Abort() != nil {
		t.Fatal("blackhole failed")
	}
}
