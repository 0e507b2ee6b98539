package connector

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

var allTypes = types.Schema{
	{Name: "b", Type: types.TBoolean},
	{Name: "i", Type: types.TInt},
	{Name: "l", Type: types.TBigInt},
	{Name: "f", Type: types.TFloat},
	{Name: "d", Type: types.TDouble},
	{Name: "m", Type: types.DecimalOf(12, 3)},
	{Name: "s", Type: types.TString},
	{Name: "v", Type: types.Type{Kind: types.String, Precision: 20}},
	{Name: "dt", Type: types.TDate},
	{Name: "ts", Type: types.TTimestamp},
	{Name: "tz", Type: types.TTimestampLTZ},
	{Name: "ym", Type: types.TIntervalYM},
	{Name: "dtv", Type: types.TIntervalDT},
}

var allRows = [][]any{
	{true, 1, 1 << 40, 1.5, 3.25, "12.345", "hello", "v", "2024-01-01", "2024-01-01 10:00:00.123", "2024-02-29 23:59:59.999", 14, 3600000},
	{false, math.MinInt32, math.MinInt64, math.Copysign(0, -1), math.NaN(), "-0.005", `a,b "quoted" 'x'`, "", "1970-01-01", "1969-12-31 23:59:59.999", "1970-01-01 00:00:00.000", -1, -1},
	{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
	{true, math.MaxInt32, math.MaxInt64, math.Inf(1), math.Inf(-1), "999999999.999", "héllo 世界 🎉\ttab", "#hash", "9999-12-31", "0001-01-01 00:00:00.000", "2038-01-19 03:14:07.001", 0, 0},
	{false, 0, 0, 0.1, 1e-300, "0.000", `"`, `""`, "2000-02-29", "2024-06-30 12:34:56.789", "2024-06-30 12:34:56.789", 1, 1},
	{true, -1, -1, -3.4e38, 1.7976931348623157e308, "-1.5", "  spaced  ", `\back\slash`, "1900-03-01", "2024-01-01 00:00:00.000", "2024-01-01 00:00:00.000", 2, 2},
	{false, 7, 7, 2.5, 2.5, "7", "", ",", "2024-01-01", "2024-01-01 00:00:00.000", "2024-01-01 00:00:00.000", 3, 3},
}

// jsonOnlyRows hold strings that the csv format cannot (line breaks) or
// that need JSON escapes.
var jsonOnlyRows = [][]any{
	{true, 1, 1, 1.0, 1.0, "1", "line\nbreak\r\n", "\x01\x1f\u2028", "2024-01-01", "2024-01-01 00:00:00.000", "2024-01-01 00:00:00.000", 1, 1},
}

// writeTable writes rows to a filesystem table through the sink.
func writeTable(t *testing.T, tab Table, rows [][]any) {
	t.Helper()
	sink := must(NewSink(tab, Env{JobID: "job1"}))
	w := must(sink.Open(tab.Schema, 0, 1))
	b := makeBatch(t, tab.Schema, rows)
	defer b.Release()
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name   string
		format string
		opts   []string
		rows   [][]any
		// nullString is how a NULL string reads back.
		nullString any
	}{
		{"csv", "csv", nil, allRows, ""},
		{"csv-null-literal", "csv", []string{"csv.null-literal", `\N`}, allRows, nil},
		{"csv-tab", "csv", []string{"csv.field-delimiter", `\t`, "csv.quote-character", "'"}, allRows, ""},
		{"csv-semicolon", "csv", []string{"csv.field-delimiter", ";", "csv.allow-comments", "true"}, allRows, ""},
		// A delimiter that numbers and timestamps contain: they are quoted.
		{"csv-dot", "csv", []string{"csv.field-delimiter", ".", "csv.quote-character", "'"}, allRows, ""},
		{"csv-pipe-no-quote", "csv", []string{"csv.field-delimiter", "|", "csv.disable-quote-character", "true"}, allRows[2:3], ""},
		{"json", "json", nil, append(slices.Clone(allRows), jsonOnlyRows...), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab := fsTable(t.TempDir(), c.format, c.opts...)
			tab.Schema = allTypes
			writeTable(t, tab, c.rows)
			want := make([][]any, len(c.rows))
			for i, r := range c.rows {
				want[i] = slices.Clone(r)
				for j, f := range allTypes {
					if r[j] == nil && f.Type.Kind == types.String {
						want[i][j] = c.nullString
					}
				}
			}
			wb := makeBatch(t, allTypes, want)
			defer wb.Release()
			got, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{BatchSize: 3})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, rowsOf(wb)) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(rowsOf(wb), "\n"))
			}
		})
	}
}

func TestCSVRefusesLineBreaks(t *testing.T) {
	tab := fsTable(t.TempDir(), "csv")
	tab.Schema = allTypes
	w := must(must(NewSink(tab, Env{JobID: "j"})).Open(allTypes, 0, 1))
	b := makeBatch(t, allTypes, jsonOnlyRows)
	defer b.Release()
	err := w.Write(b)
	if err == nil || !strings.Contains(err.Error(), "column 's'") || !strings.Contains(err.Error(), "line break") {
		t.Fatalf("got %v", err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
}

var clicks = types.Schema{
	{Name: "ts", Type: types.TTimestamp},
	{Name: "user_id", Type: types.TBigInt},
	{Name: "url", Type: types.TString},
	{Name: "amount", Type: types.TDouble},
}

func TestBadRows(t *testing.T) {
	t.Chdir(t.TempDir())
	writeFile(t, "data/clicks.csv", "2024-01-01 10:00:00,1,/a,1.5\n2024-01-01 10:00:01,2,/b,2.5\n2024-01-01 10:00:02,3,/c,x1\n2024-01-01 10:00:03,4,/d\n2024-01-01 10:00:04,5,/e,5.5\n")
	writeFile(t, "json/clicks.json", `{"ts":"2024-01-01 10:00:00","user_id":1,"url":"/a","amount":1.5}`+"\n"+
		`{"ts":"2024-01-01T10:00:01Z","user_id":"2","url":"/b","amount":"2.5"}`+"\n"+
		`{"ts":"2024-01-01 10:00:02","user_id":3,"url":"/c","amount":"x1"}`+"\n"+
		`{"ts":"2024-01-01 10:00:03","user_id":4,"url":"/d","amount":1`+"\n"+
		`{"ts":"2024-01-01 10:00:04","user_id":5.5,"url":"/e","amount":5.5}`+"\n"+
		`{"ts":"2024-01-01 10:00:05","user_id":6,"url":"/f","amount":6.5}`+"\n")
	cases := []struct {
		path, format string
		errs         []string
		good         int
	}{
		{"data/clicks.csv", "csv", []string{
			`data/clicks.csv:3: column 'amount': cannot parse "x1" as DOUBLE`,
			`data/clicks.csv:4: expected 4 fields, got 3`,
		}, 3},
		{"data", "csv", []string{
			`data/clicks.csv:3: column 'amount': cannot parse "x1" as DOUBLE`,
			`data/clicks.csv:4: expected 4 fields, got 3`,
		}, 3},
		{"json/clicks.json", "json", []string{
			`json/clicks.json:3: column 'amount': cannot parse "x1" as DOUBLE`,
			`json/clicks.json:4: invalid JSON: expected ',' or '}' after a value`,
			`json/clicks.json:5: column 'user_id': cannot parse "5.5" as BIGINT`,
		}, 3},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			tab := fsTable(c.path, c.format)
			tab.Schema = clicks
			_, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{BatchSize: 100})
			if err == nil || err.Error() != c.errs[0] {
				t.Fatalf("got error %v, want %s", err, c.errs[0])
			}
			if !errors.Is(err, exec.ErrBadRow) {
				t.Fatalf("%v is not ErrBadRow", err)
			}

			// Skipping: every bad row is counted once, the good ones read.
			tab = fsTable(c.path, c.format, c.format+".ignore-parse-errors", "true")
			tab.Schema = clicks
			var m exec.Metrics
			rows, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{BatchSize: 2, Metrics: &m})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != c.good || m.BadRows.Load() != int64(len(c.errs)) {
				t.Fatalf("read %d rows, %d bad; want %d and %d: %v", len(rows), m.BadRows.Load(), c.good, len(c.errs), rows)
			}
			// Without Metrics, skipping must not crash.
			if _, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{BatchSize: 2}); err != nil {
				t.Fatal(err)
			}
		})
	}
	// Each JSON bad row, reported in turn.
	tab := fsTable("json/clicks.json", "json")
	tab.Schema = clicks
	src := must(NewSource(tab))
	off := exec.Offset{}
	var errs []string
	for {
		r := must(src.Open(exec.Split{ID: "json/clicks.json"}, off, exec.ReadOptions{BatchSize: 1}))
		b, err := r.Next()
		off = r.Offset()
		r.Close()
		if errors.Is(err, io.EOF) {
			break
		}
		if b != nil {
			b.Release()
		}
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	want := cases[2].errs
	if !slices.Equal(errs, want) {
		t.Fatalf("got %q, want %q", errs, want)
	}
}

func TestDecodeDetails(t *testing.T) {
	s := types.Schema{
		{Name: "a", Type: types.TInt},
		{Name: "B", Type: types.TString},
		{Name: "c", Type: types.TBoolean},
		{Name: "n", Type: types.TBigInt.WithNotNull(true)},
	}
	cases := []struct {
		format, in string
		opts       []string
		want       []string
		err        string
	}{
		{"csv", " 12 ,x,TRUE,1\n,,false,2\r\n", nil, []string{"+I[12, x, true, 1]", "+I[null, , false, 2]"}, ""},
		{"csv", "\xef\xbb\xbf1,\"a\"\"b\",true,1\n# comment,,,\n\n3,NULL,,3", []string{"csv.allow-comments", "true", "csv.null-literal", "NULL"},
			[]string{`+I[1, a"b, true, 1]`, "+I[3, null, null, 3]"}, ""},
		{"csv", "1,\"ab,true,1\n", nil, nil, `:1: unterminated quoted field (quoted fields cannot span lines)`},
		{"csv", "1,\"ab\"c,true,1\n", nil, nil, `:1: unexpected 'c' after a closing quote`},
		{"csv", "1,x,true,\n", nil, nil, `:1: column 'n': NULL value in a NOT NULL column`},
		{"csv", "2147483648,x,true,1\n", nil, nil, `:1: column 'a': cannot parse "2147483648" as INT`},
		{"csv", "1,x,yes,1\n", nil, nil, `:1: column 'c': cannot parse "yes" as BOOLEAN`},
		{"csv", "1,x,true,1\n", []string{"csv.disable-quote-character", "true"}, []string{"+I[1, x, true, 1]"}, ""},
		{"json", `{"A":1,"b":"x\u00e9\ud83c\udf89","c":true,"n":1,"extra":{"x":[1,2,{"y":null}]}}` + "\n\n" + ` {"b":{"k":[1,"2"]},"n":"2","c":"FALSE","a":null} `,
			nil, []string{"+I[1, xé🎉, true, 1]", `+I[null, {"k":[1,"2"]}, false, 2]`}, ""},
		{"json", `{"a":1,"a":2,"n":1}`, nil, []string{"+I[2, null, null, 1]"}, ""},
		{"json", `{"a":1,"n":1}`, []string{"json.fail-on-missing-field", "true"}, nil, `:1: column 'B': field is missing`},
		{"json", `[1]`, nil, nil, `:1: invalid JSON: expected an object`},
		{"json", `{"n":1} x`, nil, nil, `:1: invalid JSON: unexpected data after the object`},
		{"json", `{"n":1,"z":[1,}`, nil, nil, `:1: invalid JSON: invalid value`},
		{"json", `{"n":tru}`, nil, nil, `:1: invalid JSON: invalid literal`},
		{"json", `{"n":"1\x"}`, nil, nil, `:1: invalid JSON: invalid escape`},
		{"json", `{"n":1,"c":1}`, nil, nil, `:1: column 'c': cannot parse "1" as BOOLEAN`},
		{"json", `{"n":1,"a":[1]}`, nil, nil, `:1: column 'a': cannot parse "[1]" as INT`},
		{"json", `{"n":null}`, nil, nil, `:1: column 'n': NULL value in a NOT NULL column`},
		{"json", `{"a":1}`, nil, nil, `:1: column 'n': NULL value in a NOT NULL column`},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "in")
			writeFile(t, path, c.in)
			tab := fsTable(path, c.format, c.opts...)
			tab.Schema = s
			got, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{BatchSize: 10})
			if c.err != "" {
				if err == nil || err.Error() != path+c.err {
					t.Fatalf("got %v, want %s%s", err, path, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestTimestampForms(t *testing.T) {
	for in, want := range map[string]string{
		"2024-01-01 10:00:00":           "2024-01-01 10:00:00.000",
		"2024-01-01 10:00:00.1":         "2024-01-01 10:00:00.100",
		"2024-01-01T10:00:00.123Z":      "2024-01-01 10:00:00.123",
		"2024-01-01T10:00:00.123456789": "2024-01-01 10:00:00.123",
		"2024-01-01T10:00:00+02:00":     "2024-01-01 08:00:00.000",
		"2024-01-01T10:00:00.5-01:30":   "2024-01-01 11:30:00.500",
		"2024-01-01":                    "2024-01-01 00:00:00.000",
	} {
		ms, ok := parseTimestamp([]byte(in))
		if !ok || types.FormatTimestamp(ms) != want {
			t.Errorf("%s: got %s %v, want %s", in, types.FormatTimestamp(ms), ok, want)
		}
	}
	for _, in := range []string{"2024-01-01 25:00:00", "2024-01-01 10:00:00+2", "2024-1-01", "2024-01-01T10:00:00+0x:00", "x"} {
		if _, ok := parseTimestamp([]byte(in)); ok {
			t.Errorf("%s: accepted", in)
		}
	}
}

func TestOffsets(t *testing.T) {
	for _, format := range []string{"csv", "json"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			var sb strings.Builder
			var want []string
			for i := 0; i < 95; i++ {
				ts := types.FormatTimestamp(int64(i) * 1000)
				if i == 40 {
					sb.WriteString("\n") // a blank line keeps the line count honest
				}
				if format == "csv" {
					fmt.Fprintf(&sb, "%s,%d,/p%d,%d.5\r\n", ts, i, i, i)
				} else {
					fmt.Fprintf(&sb, `{"ts":"%s","user_id":%d,"url":"/p%d","amount":%d.5}`+"\n", ts, i, i, i)
				}
				want = append(want, fmt.Sprintf("+I[%s, %d, /p%d, %d.5]", ts, i, i, i))
			}
			sb.WriteString("bad\n")
			path := filepath.Join(dir, "clicks."+format)
			writeFile(t, path, sb.String())
			tab := fsTable(path, format)
			tab.Schema = clicks
			src := must(NewSource(tab))
			sp := exec.Split{ID: path}

			r := must(src.Open(sp, exec.Offset{}, exec.ReadOptions{BatchSize: 15}))
			var got []string
			for range 3 {
				b := must(r.Next())
				got = append(got, rowsOf(b)...)
				b.Release()
			}
			off := r.Offset()
			r.Close()
			if off.Line != 46 { // 45 rows and the blank line
				t.Fatalf("offset %+v, want line 46", off)
			}
			rest, _, err := readSplit(t, src, sp, off, exec.ReadOptions{BatchSize: 50})
			got = append(got, rest...)
			if !slices.Equal(got, want) {
				t.Fatalf("resumed read differs:\n%s", strings.Join(got, "\n"))
			}
			// Line numbers continue from the offset.
			if err == nil || !strings.HasPrefix(err.Error(), path+":97: ") {
				t.Fatalf("got %v, want an error on line 97", err)
			}
		})
	}
}

func TestDirectorySplits(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"b.csv":                      "2\n",
		"a.csv":                      "1\n",
		"sub/c.csv":                  "3\n",
		"sub/_tmp/x.csv":             "9\n",
		".hidden.csv":                "9\n",
		"_SUCCESS":                   "",
		".part-x-0-0.csv.inprogress": "9\n",
		".git/y.csv":                 "9\n",
	} {
		writeFile(t, filepath.Join(dir, name), content)
	}
	tab := fsTable(dir, "csv")
	tab.Schema = types.Schema{{Name: "x", Type: types.TInt}}
	src := must(NewSource(tab))
	splits := must(src.Splits())
	var ids []string
	for i, sp := range splits {
		if sp.Index != i {
			t.Fatalf("split %d has index %d", i, sp.Index)
		}
		ids = append(ids, sp.ID)
	}
	want := []string{filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv"), filepath.Join(dir, "sub/c.csv")}
	if !slices.Equal(ids, want) {
		t.Fatalf("splits %q, want %q", ids, want)
	}
	rows := must(readAll(t, src, exec.ReadOptions{BatchSize: 10}))
	if !slices.Equal(rows, []string{"+I[1]", "+I[2]", "+I[3]"}) {
		t.Fatalf("rows %q", rows)
	}
	if !src.Bounded() {
		t.Fatal("filesystem source is bounded")
	}

	tab = fsTable(filepath.Join(dir, "missing"), "csv")
	tab.Schema = types.Schema{{Name: "x", Type: types.TInt}}
	if _, err := must(NewSource(tab)).Splits(); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("got %v", err)
	}
}

func TestSinkFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	tab := fsTable(dir, "csv")
	tab.Schema = clicks
	sink := must(NewSink(tab, Env{JobID: "j7"}))
	w0 := must(sink.Open(clicks, 0, 2))
	w1 := must(sink.Open(clicks, 1, 2))
	b := makeBatch(t, clicks, [][]any{{"2024-01-01 00:00:00", 1, "/a", 1.0}, {"2024-01-01 00:00:01", 2, "/b", nil}})
	defer b.Release()
	for _, w := range []exec.SinkWriter{w0, w1} {
		if err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	// Output is flushed lazily; Close makes it visible.
	if err := w0.Close(); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, dir); !slices.Equal(got, []string{"part-j7-0-0.csv"}) {
		t.Fatalf("after one close: %q", got)
	}
	if err := w1.(*fileWriter).flush(); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, dir); !slices.Equal(got, []string{".part-j7-1-0.csv.inprogress", "part-j7-0-0.csv"}) {
		t.Fatalf("while writing: %q", got)
	}
	if err := w1.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := w1.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, dir); !slices.Equal(got, []string{"part-j7-0-0.csv"}) {
		t.Fatalf("after abort: %q", got)
	}
	if err := w0.Abort(); err != nil { // after Close: keeps the file
		t.Fatal(err)
	}
	data := must(os.ReadFile(filepath.Join(dir, "part-j7-0-0.csv")))
	if string(data) != "2024-01-01 00:00:00.000,1,/a,1.0\n2024-01-01 00:00:01.000,2,/b,\n" {
		t.Fatalf("file content %q", data)
	}
}

func TestSinkRolling(t *testing.T) {
	dir := t.TempDir()
	tab := fsTable(dir, "json", "sink.rolling-policy.file-size", "1kb")
	tab.Schema = clicks
	w := must(must(NewSink(tab, Env{JobID: "r"})).Open(clicks, 3, 4))
	var rows [][]any
	for i := 0; i < 100; i++ {
		rows = append(rows, []any{"2024-01-01 00:00:00", i, "/page", float64(i)})
	}
	b := makeBatch(t, clicks, rows)
	defer b.Release()
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	hidden := listDir(t, dir)
	for _, n := range hidden {
		if !strings.HasPrefix(n, ".") {
			t.Fatalf("visible before close: %q", hidden)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	names := listDir(t, dir)
	// The rows after the last rollover are written by Close.
	if len(names) < 5 || len(names) < len(hidden) || len(names) > len(hidden)+1 {
		t.Fatalf("files %q (hidden before: %q)", names, hidden)
	}
	var got []string
	for n := range names {
		name := fmt.Sprintf("part-r-3-%d.json", n)
		data := must(os.ReadFile(filepath.Join(dir, name)))
		if len(data) > 1024+80 {
			t.Fatalf("%s has %d bytes", name, len(data))
		}
		// Every file but the last is full: a rollover once started the
		// next file with one row and rolled it over at once.
		if n < len(names)-1 && len(data) < 1024-80 {
			t.Fatalf("%s has %d bytes, less than the rolling size less a row", name, len(data))
		}
		got = append(got, lines(string(data))...)
	}
	if len(got) != 100 || !strings.Contains(got[99], `"user_id":99`) {
		t.Fatalf("rows %d, last %s", len(got), got[len(got)-1])
	}
}

func TestSinkNeedsJobID(t *testing.T) {
	tab := fsTable(t.TempDir(), "csv")
	if _, err := NewSink(tab, Env{}); err == nil {
		t.Fatal("no error without a job id")
	}
}
