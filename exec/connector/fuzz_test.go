package connector

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

var fuzzSchema = types.Schema{
	{Name: "b", Type: types.TBoolean},
	{Name: "i", Type: types.TInt},
	{Name: "l", Type: types.TBigInt},
	{Name: "f", Type: types.TFloat},
	{Name: "d", Type: types.TDouble},
	{Name: "m", Type: types.DecimalOf(20, 4)},
	{Name: "s", Type: types.TString},
	{Name: "dt", Type: types.TDate},
	{Name: "ts", Type: types.TTimestamp},
	{Name: "tz", Type: types.TTimestampLTZ},
}

// fuzzRead reads data as a whole file through the reader, with a tiny
// buffer and line limit so that long lines take the slow path, and checks
// that every row it returns survives encoding and decoding unchanged.
func fuzzRead(t *testing.T, cfg fsConfig, data []byte) {
	cfg.ignore = true
	src := newFileSource(Table{Schema: fuzzSchema}, cfg)
	r := src.reader("fuzz", io.NopCloser(nil), bufio.NewReaderSize(bytes.NewReader(data), 16), exec.Offset{}, exec.ReadOptions{BatchSize: 3})
	r.maxLine = 200
	var enc encoder = newJSONEncoder(fuzzSchema.Names())
	if cfg.format == "csv" {
		enc = &csvEncoder{f: cfg.csv, names: fuzzSchema.Names()}
	}
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		checkSchema(t, fuzzSchema, b)
		roundTrip(t, src, enc, b)
		b.Release()
	}
	if r.Offset().Pos != int64(len(data)) {
		t.Fatalf("offset %d after reading %d bytes", r.Offset().Pos, len(data))
	}
}

func roundTrip(t *testing.T, src *fileSource, enc encoder, b arrow.RecordBatch) {
	var out []byte
	for row := 0; row < int(b.NumRows()); row++ {
		var err error
		if out, err = enc.encode(out, b, row); err != nil {
			if src.cfg.format == "csv" && strings.Contains(err.Error(), "quoting is disabled") {
				return
			}
			t.Fatalf("encoding %s: %v", FormatRow(nil, b, row), err)
		}
	}
	cfg := src.cfg
	cfg.ignore = false
	again := newFileSource(Table{Schema: fuzzSchema}, cfg)
	r := again.reader("again", io.NopCloser(nil), bufio.NewReader(bytes.NewReader(out)), exec.Offset{}, exec.ReadOptions{BatchSize: int(b.NumRows())})
	b2, err := r.Next()
	if err != nil {
		t.Fatalf("re-reading %q: %v", out, err)
	}
	defer b2.Release()
	want, got := rowsOf(b), rowsOf(b2)
	if strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Fatalf("round trip through %q:\n got %q\nwant %q", out, got, want)
	}
}

func FuzzCSV(f *testing.F) {
	f.Add([]byte("true,1,2,1.5,2.5,3.25,x,2024-01-01,2024-01-01 10:00:00.123,2024-01-01 10:00:00Z\n"), byte(0))
	f.Add([]byte(`TRUE, -2147483648 ,9223372036854775807,NaN,-Infinity,-1e3,"a,""b""",1970-01-01,1969-12-31 23:59:59.999,`+"\n,,,,,,,,,\r\n#x\n\n"), byte(1))
	f.Add([]byte("\xef\xbb\xbffalse;1;2;3;4;5;\"6\";2024-02-29;2024-02-29T00:00:00+01:00;x\n"), byte(2))
	f.Add([]byte(`false,1,2,3,4,1.00005,"unterminated`), byte(3))
	f.Add([]byte("true,1,2,1.5,2.5,3.25,"+strings.Repeat("long", 60)+",2024-01-01,,\n"), byte(0))
	f.Fuzz(func(t *testing.T, data []byte, mode byte) {
		cfg := fsConfig{format: "csv", csv: csvFormat{delim: ',', quote: '"'}}
		switch mode % 4 {
		case 1:
			cfg.csv.comments, cfg.csv.null, cfg.csv.hasNull = true, "", true
		case 2:
			cfg.csv.delim, cfg.csv.quote = ';', '\''
		case 3:
			cfg.csv.noQuote, cfg.csv.null, cfg.csv.hasNull = true, `\N`, true
		}
		fuzzRead(t, cfg, data)
	})
}

func FuzzJSON(f *testing.F) {
	f.Add([]byte(`{"b":true,"i":1,"l":"2","f":1.5,"d":-2.5e10,"m":"3.25","s":"x\"\u00e9\ud83c\udf89","dt":"2024-01-01","ts":"2024-01-01 10:00:00.123","tz":"2024-01-01T10:00:00Z"}` + "\n"))
	f.Add([]byte(`{"B":null,"S":{"a":[1,2,{"b":[]}]},"x":[true,false,null,"\\"],"d":"NaN"}` + "\n\n  \n{}"))
	f.Add([]byte(`{"s":"unterminated}` + "\n" + `{"i":1}{"i":2}` + "\n" + `[1]` + "\n" + `{"i":01}`))
	f.Add([]byte(`{"s":"\ud800\u0041","m":1e400,"i":-0,"f":3.5e38}`))
	f.Add([]byte(`{"r":{"a":1,"in":{"c":[1.5,null]},"A":2},"xs":[[1],[],null],"mp":{"k":{"a":1},"k":null,"\u006b":{}}}` + "\n" + `{"r":[1],"xs":{"a":1},"mp":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, fsConfig{format: "json"}, data)
		fuzzNested(t, data)

		// Syntax agrees with encoding/json: a line refused as invalid JSON
		// is invalid for it too, and an object it accepts is accepted.
		d := newJSONDecoder(fuzzSchema, false)
		b := newBatch(fuzzSchema)
		for _, line := range bytes.Split(data, []byte("\n")) {
			n := b.n
			err := d.decode(line, b)
			if len(bytes.Trim(line, " \t\r")) == 0 {
				if err != nil || b.n != n {
					t.Fatalf("blank line %q: %v", line, err)
				}
				continue
			}
			if (err == nil) != (b.n == n+1) {
				t.Fatalf("%q: error %v, rows %d -> %d", line, err, n, b.n)
			}
			var re *rowError
			syntaxErr := err != nil && errors.As(err, &re) && re.col == ""
			isObject := json.Valid(line) && bytes.TrimLeft(line, " \t\r")[0] == '{'
			if syntaxErr == isObject {
				t.Fatalf("%q: our error %v, encoding/json says valid object %v", line, err, isObject)
			}
		}
		b.flush().Release()
	})
}

// FuzzDebezium decodes messages with the debezium-json decoder: a message
// is an error or its op's rows (one, two for "u"), of its op's kinds; the
// rows, written as Flink writes them ("c" for +I and +U, "d" for -U and
// -D) and read again, are the same rows of those kinds.
func FuzzDebezium(f *testing.F) {
	f.Add([]byte(`{"before":null,"after":{"b":true,"i":1,"l":2,"s":"x","ts":"2024-01-01 10:00:00.123"},"op":"c"}`), false)
	f.Add([]byte(`{"before":{"i":1,"s":"a"},"after":{"i":1,"s":"b"},"source":{"db":"x"},"op":"u","ts_ms":1}`), false)
	f.Add([]byte(`{"op":"d","before":{"i":2,"m":"1.5","dt":"2024-02-29"}}`), false)
	f.Add([]byte(`{"schema":{"type":"struct"},"payload":{"before":null,"after":{"tz":"2024-01-01T10:00:00Z"},"op":"r"}}`), true)
	f.Add([]byte(`{"before":null,"after":null,"op":"u"}`), false)
	f.Add([]byte(`{"op":"\u0063","after":{"f":1.5e38,"d":"NaN"}}`), false)
	f.Fuzz(func(t *testing.T, msg []byte, schema bool) {
		dbz := debeziumFormat{schemaInclude: schema}
		b := newBatch(fuzzSchema)
		if err := newDebeziumDecoder(fuzzSchema, dbz).decode(msg, b); err != nil {
			var re *rowError
			if !errors.As(err, &re) {
				t.Fatalf("%q: error %v is no bad row", msg, err)
			}
			if b.n != 0 {
				t.Fatalf("%q: error %v after %d rows", msg, err, b.n)
			}
			return
		}
		if b.n > 2 {
			t.Fatalf("%q: %d rows", msg, b.n)
		}
		rec := b.flush()
		defer rec.Release()
		checkSchema(t, fuzzSchema, rec)
		enc := newDebeziumEncoder(fuzzSchema.Names(), debeziumFormat{})
		again := newBatch(fuzzSchema)
		dec := newDebeziumDecoder(fuzzSchema, debeziumFormat{})
		for row := range int(rec.NumRows()) {
			out, err := enc.encode(nil, rec, row)
			if err != nil {
				t.Fatalf("encoding %s: %v", FormatRow(nil, rec, row), err)
			}
			if err := dec.decode(bytes.TrimSuffix(out, []byte("\n")), again); err != nil {
				t.Fatalf("re-reading %q: %v", out, err)
			}
		}
		rec2 := again.flush()
		defer rec2.Release()
		want := rowsOf(rec)
		for i, r := range want {
			want[i] = strings.NewReplacer("+U[", "+I[", "-U[", "-D[").Replace(r[:3]) + r[3:]
		}
		if got := rowsOf(rec2); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("round trip of %q:\n got %q\nwant %q", msg, got, want)
		}
	})
}

// fuzzNestedSchema has nested columns of every kind, nested in each other.
var fuzzNestedSchema = types.Schema{
	{Name: "r", Type: types.RowOf([]types.Field{
		{Name: "a", Type: types.TBigInt},
		{Name: "in", Type: types.RowOf([]types.Field{{Name: "c", Type: types.ArrayOf(types.TDouble)}})},
	})},
	{Name: "xs", Type: types.ArrayOf(types.ArrayOf(types.TInt))},
	{Name: "mp", Type: types.MapOf(types.TString, types.RowOf([]types.Field{{Name: "a", Type: types.TString}}))},
}

// fuzzNested decodes data's lines into nested columns: no panic, a row
// for each line accepted, and a row written as JSON reads back the same.
func fuzzNested(t *testing.T, data []byte) {
	d := newJSONDecoder(fuzzNestedSchema, false)
	b := newBatch(fuzzNestedSchema)
	for _, line := range bytes.Split(data, []byte("\n")) {
		n := b.n
		if err := d.decode(line, b); (err == nil) != (b.n == n+1) && len(bytes.Trim(line, " \t\r")) > 0 {
			t.Fatalf("%q: error %v, rows %d -> %d", line, err, n, b.n)
		}
	}
	rec := b.flush()
	defer rec.Release()
	enc := newJSONEncoder(fuzzNestedSchema.Names())
	again := newBatch(fuzzNestedSchema)
	for i := 0; i < int(rec.NumRows()); i++ {
		line, err := enc.encode(nil, rec, i)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.decode(bytes.TrimSuffix(line, []byte("\n")), again); err != nil {
			t.Fatalf("row %s, written as %s, does not read back: %v", FormatRow(nil, rec, i), line, err)
		}
	}
	rec2 := again.flush()
	defer rec2.Release()
	for i := 0; i < int(rec.NumRows()); i++ {
		if a, b := FormatRow(nil, rec, i), FormatRow(nil, rec2, i); !bytes.Equal(a, b) {
			t.Fatalf("row %s reads back as %s", a, b)
		}
	}
}
