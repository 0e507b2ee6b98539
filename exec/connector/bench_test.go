//go:build unix

package connector

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

const benchRows = 100_000

// meter reports rows per second of wall-clock time and of process CPU
// time; the latter stays meaningful on a machine shared with other work.
type meter struct {
	wall time.Time
	cpu  time.Duration
}

func startMeter() meter { return meter{time.Now(), cpuTime()} }

func (m meter) report(b *testing.B, rows float64) {
	b.ReportMetric(rows/time.Since(m.wall).Seconds(), "rows/s")
	b.ReportMetric(rows/(cpuTime()-m.cpu).Seconds(), "rows/cpu-s")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// clicksData renders benchRows clicks-like rows (timestamp, bigint, string,
// double) in format.
func clicksData(format string) []byte {
	var buf bytes.Buffer
	for i := 0; i < benchRows; i++ {
		ts := types.FormatTimestamp(1704067200000 + int64(i)*37)
		url := fmt.Sprintf("/products/%d/details", i%5000)
		amount := float64(i*7919%100000) / 100 // two decimals, as bench-files' amounts
		if format == "csv" {
			fmt.Fprintf(&buf, "%s,%d,%s,%s\n", ts, 100000+i%9973, url, types.FormatFloat(amount, 64))
		} else {
			fmt.Fprintf(&buf, `{"ts":"%s","user_id":%d,"url":"%s","amount":%s}`+"\n", ts, 100000+i%9973, url, types.FormatFloat(amount, 64))
		}
	}
	return buf.Bytes()
}

func benchDecode(b *testing.B, format string, read []bool) {
	data := clicksData(format)
	src := newFileSource(Table{Schema: clicks, Read: read}, fsConfig{format: format, csv: csvFormat{delim: ',', quote: '"'}})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	alloc := exec.NewPoolAlloc() // as a run has
	m := startMeter()
	for range b.N {
		r := src.reader("bench", io.NopCloser(nil), bufio.NewReaderSize(bytes.NewReader(data), 1<<20), exec.Offset{}, exec.ReadOptions{BatchSize: 1024, Alloc: alloc})
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
	m.report(b, float64(benchRows)*float64(b.N))
}

func BenchmarkDecodeCSV(b *testing.B)  { benchDecode(b, "csv", nil) }
func BenchmarkDecodeJSON(b *testing.B) { benchDecode(b, "json", nil) }

// aggRead is the projection of bench-files' agg query: every column but
// url.
var aggRead = []bool{true, true, false, true}

func BenchmarkDecodeCSVProjected(b *testing.B)  { benchDecode(b, "csv", aggRead) }
func BenchmarkDecodeJSONProjected(b *testing.B) { benchDecode(b, "json", aggRead) }

// BenchmarkDecodeJSONStdlib is the baseline the hand-written scanner is
// measured against: encoding/json decoding each line into a map.
func BenchmarkDecodeJSONStdlib(b *testing.B) {
	data := clicksData("json")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	m := startMeter()
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
	m.report(b, float64(benchRows)*float64(b.N))
}

func benchEncode(b *testing.B, format string) {
	src := newFileSource(Table{Schema: clicks}, fsConfig{format: format, csv: csvFormat{delim: ',', quote: '"'}})
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
	m := startMeter()
	for range b.N {
		buf = buf[:0]
		for row := 0; row < int(rec.NumRows()); row++ {
			buf, _ = enc.encode(buf, rec, row)
		}
	}
	m.report(b, float64(rec.NumRows())*float64(b.N))
}

func BenchmarkEncodeCSV(b *testing.B)  { benchEncode(b, "csv") }
func BenchmarkEncodeJSON(b *testing.B) { benchEncode(b, "json") }

func BenchmarkDatagen(b *testing.B) {
	src := must(NewSource(Table{Schema: clicks, Options: map[string]string{"connector": "datagen", "rows-per-second": "0", "fields.url.length": "20"}}))
	r := must(src.Open(exec.Split{}, exec.Offset{}, exec.ReadOptions{BatchSize: 1024}))
	b.ReportAllocs()
	m := startMeter()
	for range b.N {
		rec := must(r.Next())
		rec.Release()
	}
	m.report(b, 1024*float64(b.N))
}
