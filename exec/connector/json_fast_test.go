package connector

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// jsonColdWarm decodes each line of data twice: with one decoder for all
// lines, which resolves names by the place they had on earlier lines
// (sameName, field), and with a new decoder per line, which has seen
// nothing. Both must accept the same lines, fail the same ones with the
// same error, and make the same rows.
func jsonColdWarm(t *testing.T, data []byte) {
	warm := newJSONDecoder(fuzzSchema, false)
	wb, cb := newBatch(fuzzSchema), newBatch(fuzzSchema)
	for _, line := range bytes.Split(data, []byte("\n")) {
		werr := warm.decode(line, wb)
		cerr := newJSONDecoder(fuzzSchema, false).decode(line, cb)
		if fmt.Sprint(werr) != fmt.Sprint(cerr) {
			t.Fatalf("%q: warm decoder: %v, new decoder: %v", line, werr, cerr)
		}
	}
	w, c := wb.flush(), cb.flush()
	defer w.Release()
	defer c.Release()
	if got, want := strings.Join(rowsOf(w), "\n"), strings.Join(rowsOf(c), "\n"); got != want {
		t.Fatalf("warm decoder's rows:\n%s\nnew decoder's:\n%s", got, want)
	}
}

func TestJSONColdWarm(t *testing.T) {
	lines := []string{
		`{"s":"a","i":1,"ts":"2024-01-01 00:00:00"}`,
		`{"s":"b","i":2,"ts":"2024-01-01 00:00:01"}`,
		`{"s\"":"c","i":3}`,     // the first name with a quote after it
		`{"s\\":"c","i":3}`,     // a backslash escape after the name
		`{"\u0073":"d","i":4}`,  // the same name escaped
		`{"\u0073":"e","I":5}`,  // an escaped name seen before, a folded one
		`{"sx":"f","i":6}`,      // a longer name with the same start
		`{"":"g","i":7}`,        // a shorter one
		`{"s`,                   // cut in the name
		`{"s"`,                  // cut after it
		`{"s":"h","i":8,"i":9}`, // repeated: the last wins
		`{"i":10,"s":"i"}`,      // another order
		`{"s":"j" , "i" : 11 }`,
		"{\"s\":\"k\",\"i\":12,\"s\x01\":1}",
	}
	jsonColdWarm(t, []byte(strings.Join(lines, "\n")))
	jsonColdWarm(t, []byte(strings.Join(append(lines[1:], lines...), "\n")))
}

// plainEndRef is plainEnd one byte at a time.
func plainEndRef(s []byte, j int) int {
	for ; j < len(s); j++ {
		if c := s[j]; c == '"' || c == '\\' || c < 0x20 {
			return j
		}
	}
	return j
}

func FuzzPlainEnd(f *testing.F) {
	f.Add([]byte(`abcdefgh"ijklmnop`), 0)
	f.Add([]byte("\x7f\x80\xff\x20\x1f\"\\\x00abcdefghijklmnop"), 1)
	f.Add([]byte(`https://shop.example.com/p/123","amount":1.5}`), 0)
	f.Fuzz(func(t *testing.T, s []byte, j int) {
		if j < 0 || j > len(s) {
			return
		}
		if got, want := plainEnd(s, j), plainEndRef(s, j); got != want {
			t.Fatalf("plainEnd(%q, %d) = %d, want %d", s, j, got, want)
		}
	})
}

func FuzzJSONColdWarm(f *testing.F) {
	f.Add([]byte(`{"s":"a","i":1}` + "\n" + `{"s\"":"b","i":2}` + "\n" + `{"\u0073":"c"}` + "\n" + `{"sx":1,"s":"d"}`))
	f.Add([]byte(`{"b":true,"d":1.5,"ts":"2024-01-01 10:00:00.123"}` + "\n" + `{"b":false,"d":-0,"ts":"2024-01-01 10:00:00"}` + "\n" + `{"b":null,"d":1e5,"ts":null}`))
	f.Fuzz(jsonColdWarm)
}
