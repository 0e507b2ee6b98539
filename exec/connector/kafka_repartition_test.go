package connector

import (
	"testing"

	"github.com/strandsql/strand/types"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestMarks: a partition's watermark is the least over every writer of
// every member, the smallest until each has marked one, and the marks
// survive the checkpoint's encoding.
func TestMarks(t *testing.T) {
	m := newMarks(2)
	mark := func(writer string, wm int64) {
		t.Helper()
		if err := m.set(writer, wm); err != nil {
			t.Fatal(err)
		}
	}
	mark("0/0/2", 100)
	mark("0/1/2", 50)
	if wm := m.watermark(); wm != types.MinWatermark {
		t.Fatalf("member 1 has not marked: watermark %d", wm)
	}
	mark("1/0/1", 70)
	if wm := m.watermark(); wm != 50 {
		t.Fatalf("watermark %d, want 50", wm)
	}
	mark("0/1/2", 40) // never goes back
	again, err := parseMarks(m.String(), 2)
	if err != nil || again.watermark() != 50 || again.String() != m.String() {
		t.Fatalf("round trip %q: %v, %v", m.String(), again, err)
	}
	for _, w := range []string{"0/0/2", "0/1/2", "1/0/1"} {
		mark(w, types.MaxWatermark)
	}
	if wm := m.watermark(); wm != types.MaxWatermark {
		t.Fatalf("every writer ended: watermark %d", wm)
	}
	if err := m.set("2/0/1", 5); err == nil {
		t.Fatal("a mark of member 2 of 2 was taken")
	}
	if _, err := parseMarks("0/0/1=x", 1); err == nil {
		t.Fatal("a bad encoding was taken")
	}
	rec := &kgo.Record{Headers: []kgo.RecordHeader{{Key: markWatermark, Value: []byte("12")}, {Key: markWriter, Value: []byte("0/0/1")}}}
	if !isMark(rec) {
		t.Fatal("a mark is not one")
	}
	if isMark(&kgo.Record{Value: []byte("{}"), Headers: rec.Headers}) {
		t.Fatal("a row with the headers is a mark")
	}
}
