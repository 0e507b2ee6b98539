package tests

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strandsql/strand/session"
)

// laterFormatQuery sums random DOUBLE values per key in one-minute
// windows: nearly every sum is not a double, so its state is an exact
// sum's encoding (agg.floatSumAcc.Put), and the windows are open for
// most of the run.
const laterFormatQuery = v1Clicks + `SELECT window_start, user_id, SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, user_id;
`

// TestFloatSumLaterFormatRefused: a savepoint whose exact float sums are
// in a format of a later strand (the header bit agg reserves for one) is
// refused at restore with an error that says so and names the operator,
// instead of being read as corrupt or misread. The savepoint is one this
// strand took, with that bit set in every exact sum and the checksums
// made anew, as a later strand would have written them. No restart can
// cure that: the job fails after its first attempt, not after the
// restart strategy's three.
func TestFloatSumLaterFormatRefused(t *testing.T) {
	t.Chdir(t.TempDir())
	sp := savepointOf(t, "q", laterFormatQuery)
	marked := markLaterFloatSums(t, sp)
	if marked == 0 {
		t.Fatalf("the savepoint holds no exact float sum to mark")
	}

	var out, log syncBuffer
	r := session.New(&out, &log)
	r.Parallelism = 2
	r.Durable = session.Durability{StateDir: ".strand2", Name: "q", FromSavepoint: sp}
	r.Config[session.KeyCheckpointInterval] = "1s"
	err := r.ExecScript(context.Background(), laterFormatQuery)
	if err == nil || !strings.Contains(err.Error(), "accumulator state of a later strand") || !strings.Contains(err.Error(), "uid=window-") {
		t.Fatalf("restoring %d float sums of a later format: %v, want a refusal that says so and names the window operator\n%s", marked, err, log.String())
	}
	if n := strings.Count(log.String(), "resuming from savepoint"); n != 1 || strings.Contains(log.String(), "restarting in") {
		t.Fatalf("the refused restore ran %d times, want once, without restarts:\n%s", n, log.String())
	}
}

// markLaterFloatSums sets the later-format bit in the header of every
// exact float sum of the window aggregate's groups in the savepoint in
// dir (markGroups), fixes the files' checksums in _metadata, and returns
// how many sums it marked.
func markLaterFloatSums(t *testing.T, dir string) int {
	t.Helper()
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	crcs := map[string]uint32{}
	marked := 0
	files, err := filepath.Glob(filepath.Join(dir, "*.state"))
	if err != nil || len(files) == 0 {
		t.Fatalf("savepoint state files: %v, %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for p := 12; p < len(b); {
			p += 2        // key group
			for range 2 { // name, key
				n, m := binary.Uvarint(b[p:])
				p += m + int(n)
			}
			n, m := binary.Uvarint(b[p:])
			p += m
			marked += markGroups(b[p : p+int(n)])
			p += int(n)
		}
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		crcs[filepath.Base(f)] = crc32.Checksum(b, castagnoli)
	}
	editMetadata(t, dir, func(md map[string]any) {
		for _, op := range md["Operators"].([]any) {
			for _, st := range op.(map[string]any)["Subtasks"].([]any) {
				if d, ok := st.(map[string]any)["Data"].(map[string]any); ok {
					if c, ok := crcs[filepath.Base(d["Path"].(string))]; ok {
						d["CRC32C"] = c
					}
				}
			}
		}
	})
	return marked
}

// markGroups marks the exact float sums of the groups of a window part,
// v: a uvarint count of groups, then for each its key and its
// accumulators' state, each after its uvarint length. A group whose
// state is one exact float sum (the query's only accumulator) is
// marked. It returns how many were, none if v is not a window part.
func markGroups(v []byte) int {
	groups, p := binary.Uvarint(v)
	if p <= 0 {
		return 0
	}
	var sums [][]byte
	for range groups {
		var f [2][]byte
		for i := range f {
			n, m := binary.Uvarint(v[p:])
			if m <= 0 || uint64(len(v)-p-m) < n {
				return 0
			}
			f[i], p = v[p+m:p+m+int(n)], p+m+int(n)
		}
		if isExactFloatSum(f[1]) {
			sums = append(sums, f[1])
		}
	}
	for _, st := range sums {
		_, c := binary.Varint(st)
		st[c] |= 0x80
	}
	return len(sums)
}

// isExactFloatSum reports whether v is one exact float sum's state: a
// negative count, a header k<<1 | specials without the later-format bit,
// the base and k limbs when k > 0, and the three special counts when
// specials.
func isExactFloatSum(v []byte) bool {
	cnt, n := binary.Varint(v)
	if n <= 0 || cnt >= 0 || len(v) <= n || v[n]&0x80 != 0 {
		return false
	}
	h, rest := v[n], v[n+1:]
	if k := int(h >> 1); k > 0 {
		_, m := binary.Uvarint(rest)
		if m <= 0 || len(rest) < m+8*k {
			return false
		}
		rest = rest[m+8*k:]
	}
	if h&1 != 0 {
		for range 3 {
			_, m := binary.Varint(rest)
			if m <= 0 {
				return false
			}
			rest = rest[m:]
		}
	}
	return len(rest) == 0
}

// TestSavepointFloatSumBeforeExact restores the savepoint under
// testdata/savepoints/fsum-v0/, taken by strand before sums of doubles
// were exact (commit d17a7cf, the query.sql there stopped part way as
// writeV1 stops v1Query), whose window state holds each SUM and AVG as a
// count and a double: the resumed run prints the rows of the
// uninterrupted run that the stopped one had not (expected.txt), the
// windows open at the savepoint included. The amounts are quarters, so
// the old sums of doubles were exact and the two strands agree on every
// row.
func TestSavepointFloatSumBeforeExact(t *testing.T) {
	testdata, err := filepath.Abs("testdata/savepoints/fsum-v0")
	if err != nil {
		t.Fatal(err)
	}
	query, err := os.ReadFile(filepath.Join(testdata, "query.sql"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(testdata, "expected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	var out, log syncBuffer
	s := session.New(&out, &log)
	s.Parallelism = 3
	s.Durable = session.Durability{StateDir: ".strand", Name: "q", FromSavepoint: filepath.Join(testdata, "savepoint")}
	s.Config[session.KeyCheckpointInterval] = "1s"
	if err := s.ExecScript(context.Background(), string(query)); err != nil {
		t.Fatalf("restoring the savepoint: %v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "resuming from savepoint") {
		t.Fatalf("the run did not resume from the savepoint:\n%s", log.String())
	}
	diffRows(t, sortedLines(out.String()), sortedLines(string(want)))
}
