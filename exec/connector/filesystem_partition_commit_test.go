package connector

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

var q10Schema = types.Schema{{Name: "x", Type: types.TBigInt}, {Name: "dt", Type: types.TString}, {Name: "hm", Type: types.TString}}

// q10Sink is a sink partitioned as Nexmark's q10, committing partitions
// by partition time one minute late.
func q10Sink(t *testing.T, dir string, kv ...string) exec.Sink {
	tab := fsTable(dir, "csv", append([]string{
		"sink.partition-commit.trigger", "partition-time", "sink.partition-commit.delay", "1 min",
		"sink.partition-commit.policy.kind", "success-file", "partition.time-extractor.timestamp-pattern", "$dt $hm:00"}, kv...)...)
	tab.Schema, tab.Partitions = q10Schema, []string{"dt", "hm"}
	return must(NewSink(tab, Env{JobID: "run", Job: "job_1"}))
}

func successes(t *testing.T, dir string) []string {
	var out []string
	for _, f := range files(t, dir) {
		if filepath.Base(f) == "_SUCCESS" {
			out = append(out, filepath.ToSlash(filepath.Dir(f)))
		}
	}
	return out
}

func ms(ts string) int64 {
	v, _ := types.ParseTimestamp(ts)
	return v
}

// TestPartitionTimeCommit: a partition is committed at the checkpoint at
// whose barrier every subtask's watermark has passed its time plus the
// delay, and only once its files are visible.
func TestPartitionTimeCommit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	sink := q10Sink(t, dir)
	cm := sink.(exec.Committer)
	w0, w1 := must(sink.Open(q10Schema, 0, 2)), must(sink.Open(q10Schema, 1, 2))
	b := makeBatch(t, q10Schema, [][]any{{1, "2024-01-01", "10:00"}, {2, "2024-01-01", "10:01"}})
	defer b.Release()
	if err := w0.Write(b); err != nil {
		t.Fatal(err)
	}
	barrier := func(id int64, wm0, wm1 string) []checkpoint.PendingFile {
		must(0, w0.(exec.Watermarker).Watermark(ms(wm0)))
		must(0, w1.(exec.Watermarker).Watermark(ms(wm1)))
		return append(must(w0.(exec.PreCommitter).PreCommit(id)), must(w1.(exec.PreCommitter).PreCommit(id))...)
	}
	// 10:00 + 1 min is passed by subtask 0 only: nothing is committed.
	ck1 := barrier(1, "2024-01-01 10:01:30", "2024-01-01 10:00:30")
	if err := cm.Commit(ck1); err != nil {
		t.Fatal(err)
	}
	if got := successes(t, dir); len(got) != 0 {
		t.Fatalf("after checkpoint 1: %v committed", got)
	}
	// A commit of part of the checkpoint (as a restore's, one file at a
	// time) decides nothing.
	ck2 := barrier(2, "2024-01-01 10:02:00", "2024-01-01 10:01:30")
	if err := cm.Commit(ck2[:1]); err != nil {
		t.Fatal(err)
	}
	if got := successes(t, dir); len(got) != 0 {
		t.Fatalf("after part of checkpoint 2: %v committed", got)
	}
	if err := cm.Commit(ck2); err != nil {
		t.Fatal(err)
	}
	if got, want := successes(t, dir), []string{"dt=2024-01-01/hm=10%3A00"}; !slices.Equal(got, want) {
		t.Fatalf("after checkpoint 2: %v committed, want %v", got, want)
	}
	// The end of the input commits every partition.
	if err := w0.Close(); err != nil {
		t.Fatal(err)
	}
	if got := successes(t, dir); len(got) != 1 {
		t.Fatalf("after one of two closes: %v", got)
	}
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	if got := successes(t, dir); len(got) != 2 {
		t.Fatalf("after the end: %v", got)
	}
}

// TestPartitionCommitRestore: a restore that removes a partition's files
// committed after its checkpoint removes the partition's success file
// too; the replay commits it again.
func TestPartitionCommitRestore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	sink := q10Sink(t, dir)
	w := must(sink.Open(q10Schema, 0, 1))
	b := makeBatch(t, q10Schema, [][]any{{1, "2024-01-01", "10:00"}})
	defer b.Release()
	must(0, w.Write(b))
	must(0, w.(exec.Watermarker).Watermark(ms("2024-01-01 10:05:00")))
	ck1 := must(w.(exec.PreCommitter).PreCommit(1))
	must(0, sink.(exec.Committer).Commit(ck1))
	if len(successes(t, dir)) != 1 {
		t.Fatal("not committed")
	}
	again := q10Sink(t, dir)
	if err := again.(exec.Committer).Recover(0, nil); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); len(got) != 0 {
		t.Errorf("after a restore to before checkpoint 1: %v", got)
	}
}

func TestPartitionCommitOptions(t *testing.T) {
	bad := []struct {
		kv   []string
		want string
	}{
		{[]string{"sink.partition-commit.policy.kind", "metastore,success-file"}, "Hive metastore"},
		{[]string{"sink.partition-commit.policy.kind", "custom"}, "Java class"},
		{[]string{"sink.partition-commit.trigger", "event-time"}, "invalid value 'event-time'"},
		{[]string{"sink.partition-commit.delay", "soon"}, "must be a duration"},
		{[]string{"partition.time-extractor.timestamp-pattern", "$day"}, "$ must name a partition column (dt, hm)"},
		{[]string{"sink.rolling-policy.rollover-interval", "0 s"}, "positive duration"},
	}
	for _, c := range bad {
		tab := fsTable(t.TempDir(), "csv", append([]string{"sink.partition-commit.policy.kind", "success-file"}, c.kv...)...)
		tab.Schema, tab.Partitions = q10Schema, []string{"dt", "hm"}
		_, err := NewSink(tab, Env{JobID: "run"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.kv, err, c.want)
		}
	}
	tab := fsTable(t.TempDir(), "csv", "sink.partition-commit.policy.kind", "success-file")
	tab.Schema = q10Schema
	if _, err := NewSink(tab, Env{JobID: "run"}); err == nil || !strings.Contains(err.Error(), "needs PARTITIONED BY") {
		t.Errorf("an unpartitioned table: %v", err)
	}
}

// TestRolloverInterval: a file open longer than the rollover interval is
// rolled at the next check, without a checkpoint.
func TestRolloverInterval(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	tab := fsTable(dir, "csv", "sink.rolling-policy.rollover-interval", "1 ms", "sink.rolling-policy.check-interval", "1 ms")
	tab.Schema = partSchema
	sink := must(NewSink(tab, Env{JobID: "run"}))
	w := must(sink.Open(partSchema, 0, 1))
	b := makeBatch(t, partSchema, [][]any{{1, "a"}})
	defer b.Release()
	for range 3 {
		must(0, w.Write(b))
		time.Sleep(3 * time.Millisecond)
	}
	must(0, w.Close())
	entries, _ := os.ReadDir(dir)
	var parts int
	for _, e := range entries {
		if !hidden(e.Name()) {
			parts++
		}
	}
	if parts < 2 {
		t.Errorf("%d part files, want the file rolled over", parts)
	}
}
