package connector

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

const benchRows = 100_000

// clicksData renders benchRows clicks-like rows (timestamp, bigint, string,
// double) in format.
func clicksData(format string) []byte {
	var buf bytes.Buffer
	for i := 0; i < benchRows; i++ {
		ts := types.FormatTimestamp(1704067200000 + int64(i)*37)
		url := fmt.Sprintf("/products/%d/details", i%5000)
		amount := float64(i%10000) / 7
		if format == "csv" {
			fmt.Fprintf(&buf, "%s,%d,%s,%s\n", ts, 100000+i%9973, url, types.FormatFloat(amount, 64))
		} else {
			fmt.Fprintf(&buf, `{"ts":"%s","user_id":%d,"url":"%s","amount":%s}`+"\n", ts, 100000+i%9973, url, types.FormatFloat(amount, 64))
		}
	}
	return buf.Bytes()
}

func benchDecode(b *testing.B, format string) {
	data := clicksData(format)
	src := &fileSource{schema: clicks, cfg: fsConfig{format: format, csv: csvFormat{delim: ',', quote: '"'}}}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		r := src.reader("bench", io.NopCloser(nil), bufio.NewReaderSize(bytes.NewReader(data), 1<<20), exec.Offset{}, exec.ReadOptions{BatchSize: 1024})
		n := 0
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += int(rec.NumRows())
			rec.Release()
		}
		if n != benchRows {
			b.Fatalf("%d rows", n)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/time.Since(start).Seconds(), "rows/s")
}

func BenchmarkDecodeCSV(b *testing.B)  { benchDecode(b, "csv") }
func BenchmarkDecodeJSON(b *testing.B) { benchDecode(b, "json") }

// BenchmarkDecodeJSONStdlib is the baseline the hand-written scanner is
// measured against: encoding/json decoding each line into a map.
func BenchmarkDecodeJSONStdlib(b *testing.B) {
	data := clicksData("json")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		for {
			var m map[string]any
			if err := dec.Decode(&m); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/time.Since(start).Seconds(), "rows/s")
}

func benchEncode(b *testing.B, format string) {
	src := &fileSource{schema: clicks, cfg: fsConfig{format: format, csv: csvFormat{delim: ',', quote: '"'}}}
	r := src.reader("bench", io.NopCloser(nil), bufio.NewReader(bytes.NewReader(clicksData(format))), exec.Offset{}, exec.ReadOptions{BatchSize: 1024})
	rec, err := r.Next()
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Release()
	var enc encoder = newJSONEncoder(clicks.Names())
	if format == "csv" {
		enc = &csvEncoder{f: src.cfg.csv, names: clicks.Names()}
	}
	var buf []byte
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		buf = buf[:0]
		for row := 0; row < int(rec.NumRows()); row++ {
			buf, _ = enc.encode(buf, rec, row)
		}
	}
	b.ReportMetric(float64(rec.NumRows())*float64(b.N)/time.Since(start).Seconds(), "rows/s")
}

func BenchmarkEncodeCSV(b *testing.B)  { benchEncode(b, "csv") }
func BenchmarkEncodeJSON(b *testing.B) { benchEncode(b, "json") }

func BenchmarkDatagen(b *testing.B) {
	src := must(NewSource(Table{Schema: clicks, Options: map[string]string{"connector": "datagen", "rows-per-second": "0", "fields.url.length": "20"}}))
	r := must(src.Open(exec.Split{}, exec.Offset{}, exec.ReadOptions{BatchSize: 1024}))
	b.ReportAllocs()
	start := time.Now()
	for range b.N {
		rec := must(r.Next())
		rec.Release()
	}
	b.ReportMetric(1024*float64(b.N)/time.Since(start).Seconds(), "rows/s")
}
