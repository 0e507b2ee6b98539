package connector

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

var genSchema = types.Schema{
	{Name: "ts", Type: types.TTimestamp},
	{Name: "id", Type: types.TBigInt},
	{Name: "n", Type: types.TInt},
	{Name: "s", Type: types.TString},
	{Name: "d", Type: types.TDouble},
	{Name: "f", Type: types.TFloat},
	{Name: "m", Type: types.DecimalOf(10, 2)},
	{Name: "b", Type: types.TBoolean},
	{Name: "dt", Type: types.TDate},
	{Name: "lt", Type: types.TTimestampLTZ},
	{Name: "seq", Type: types.TString},
}

func genTable(kv ...string) Table {
	o := map[string]string{"connector": "datagen", "rows-per-second": "0", "number-of-rows": "100",
		"fields.s.length": "5", "fields.n.min": "-3", "fields.n.max": "3", "fields.d.min": "10", "fields.d.max": "20",
		"fields.m.min": "-1.5", "fields.m.max": "1.5", "fields.lt.kind": "random", "fields.lt.max-past": "5 s",
		"fields.ts.step": "100 ms", "fields.seq.kind": "sequence", "fields.seq.start": "7", "fields.b.null-rate": "0.3"}
	for i := 0; i+1 < len(kv); i += 2 {
		o[kv[i]] = kv[i+1]
	}
	return Table{Name: "g", Schema: genSchema, Options: o}
}

// genRows reads all splits and orders the rows by id (row number).
func genRows(t *testing.T, tab Table) []string {
	t.Helper()
	src := must(NewSource(tab))
	rows := must(readAll(t, src, exec.ReadOptions{BatchSize: 7}))
	key := func(r string) int {
		var ts string
		var id int
		fmt.Sscanf(strings.SplitN(r, ", ", 3)[1], "%d", &id)
		_ = ts
		return id
	}
	slices.SortStableFunc(rows, func(a, b string) int { return key(a) - key(b) })
	return rows
}

func TestDatagenDeterministic(t *testing.T) {
	tab := genTable("fields.id.kind", "sequence", "fields.id.start", "0")
	a := genRows(t, tab)
	if len(a) != 100 {
		t.Fatalf("%d rows", len(a))
	}
	if !slices.Equal(a, genRows(t, tab)) {
		t.Fatal("same seed, different rows")
	}
	tab3 := genTable("fields.id.kind", "sequence", "fields.id.start", "0", "splits", "3")
	if !slices.Equal(a, genRows(t, tab3)) {
		t.Fatal("splits=3 differs from splits=1")
	}
	if slices.Equal(a, genRows(t, genTable("fields.id.kind", "sequence", "fields.id.start", "0", "seed", "1"))) {
		t.Fatal("another seed, same rows")
	}
	nulls := 0
	for i, r := range a {
		f := strings.Split(strings.TrimSuffix(strings.TrimPrefix(r, "+I["), "]"), ", ")
		if want := types.FormatTimestamp(1704067200000 + int64(i)*100); f[0] != want {
			t.Fatalf("row %d ts %s, want %s", i, f[0], want)
		}
		var n int
		var d, m float64
		fmt.Sscan(f[2], &n)
		fmt.Sscan(f[4], &d)
		fmt.Sscan(f[6], &m)
		if n < -3 || n > 3 || d < 10 || d >= 20 || m < -1.5 || m > 1.5 || len(f[3]) != 5 || strings.Trim(f[3], "abcdefghijklmnopqrstuvwxyz") != "" {
			t.Fatalf("row %d out of range: %s", i, r)
		}
		if f[10] != fmt.Sprint(7+i) {
			t.Fatalf("row %d seq %s", i, f[10])
		}
		lt, _ := types.ParseTimestamp(f[9])
		if base := 1704067200000 + int64(i)*1000; lt > base || lt <= base-5000 {
			t.Fatalf("row %d lagged ts %s", i, f[9])
		}
		if f[7] == "null" {
			nulls++
		}
	}
	if nulls < 15 || nulls > 45 {
		t.Fatalf("%d nulls at rate 0.3", nulls)
	}
}

func TestDatagenBounds(t *testing.T) {
	// A sequence's end bounds the source when number-of-rows is unset.
	tab := genTable("fields.id.kind", "sequence", "fields.id.start", "5", "fields.id.end", "24", "splits", "2")
	delete(tab.Options, "number-of-rows")
	src := must(NewSource(tab))
	if !src.Bounded() {
		t.Fatal("not bounded")
	}
	rows := genRows(t, tab)
	if len(rows) != 20 || !strings.Contains(rows[0], ", 5, ") || !strings.Contains(rows[19], ", 24, ") {
		t.Fatalf("rows %d: %s ... %s", len(rows), rows[0], rows[len(rows)-1])
	}
	// number-of-rows smaller than the sequence wins.
	tab.Options["number-of-rows"] = "3"
	if rows := genRows(t, tab); len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	delete(tab.Options, "number-of-rows")
	delete(tab.Options, "fields.id.end")
	if must(NewSource(tab)).Bounded() {
		t.Fatal("bounded without an end")
	}
}

func TestDatagenResume(t *testing.T) {
	tab := genTable("splits", "3")
	src := must(NewSource(tab))
	sp := must(src.Splits())[1]
	all, end, err := readSplit(t, src, sp, exec.Offset{}, exec.ReadOptions{BatchSize: 4})
	if err != nil || len(all) != 33 || end.Pos != 100 || end.Line != 33 {
		t.Fatalf("%d rows, offset %+v, %v", len(all), end, err)
	}
	r := must(src.Open(sp, exec.Offset{}, exec.ReadOptions{BatchSize: 4}))
	var got []string
	for range 3 {
		b := must(r.Next())
		got = append(got, rowsOf(b)...)
		b.Release()
	}
	off := r.Offset()
	r.Close()
	if off.Pos != 1+12*3 || off.Line != 12 {
		t.Fatalf("offset %+v", off)
	}
	rest, _, _ := readSplit(t, src, sp, off, exec.ReadOptions{BatchSize: 5})
	if !slices.Equal(append(got, rest...), all) {
		t.Fatal("resumed rows differ")
	}
}

func TestDatagenRate(t *testing.T) {
	tab := genTable("rows-per-second", "2000", "number-of-rows", "600", "splits", "2")
	src := must(NewSource(tab))
	start := time.Now()
	var zero int
	for _, sp := range must(src.Splits()) {
		r := must(src.Open(sp, exec.Offset{}, exec.ReadOptions{BatchSize: 1000}))
		for {
			b, err := r.Next()
			if err != nil {
				break
			}
			if b.NumRows() == 0 {
				zero++
			}
			b.Release()
		}
		r.Close()
	}
	// Read one split after the other, each at 1000 rows/s: 0.3 s each.
	if el := time.Since(start); el < 400*time.Millisecond || el > 3*time.Second {
		t.Fatalf("600 rows at 2000/s over 2 splits read serially took %v", el)
	}
	_ = zero
}

func TestDatagenSequenceTypes(t *testing.T) {
	s := types.Schema{
		{Name: "m", Type: types.DecimalOf(6, 2)},
		{Name: "d", Type: types.TDouble},
		{Name: "dt", Type: types.TDate},
		{Name: "iv", Type: types.TIntervalDT},
		{Name: "x", Type: types.TString},
	}
	o := map[string]string{"connector": "datagen", "rows-per-second": "0"}
	for _, c := range []string{"m", "d", "dt", "iv", "x"} {
		o["fields."+c+".kind"] = "sequence"
	}
	o["fields.m.start"], o["fields.m.end"] = "5", "7"
	o["fields.dt.start"] = "2024-02-28"
	o["fields.x.start"] = "98"
	rows := must(readAll(t, must(NewSource(Table{Schema: s, Options: o})), exec.ReadOptions{BatchSize: 2}))
	want := []string{
		"+I[5.00, 0.0, 2024-02-28, 0, 98]",
		"+I[6.00, 1.0, 2024-02-29, 1, 99]",
		"+I[7.00, 2.0, 2024-03-01, 2, 100]",
	}
	if !slices.Equal(rows, want) {
		t.Fatalf("got %q", rows)
	}
}
