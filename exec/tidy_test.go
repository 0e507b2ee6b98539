package exec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/types"
)

// twoPhaseSink is a two-phase-commit sink in memory: each pre-commit hands
// over one "file" per writer, which Commit makes visible; Clean removes the
// handed files a lineage never got committed.
type twoPhaseSink struct {
	job       string // the lineage its writers write
	mu        sync.Mutex
	handed    map[string]bool // pre-committed, not committed
	handovers int
	committed []string
	cleaned   []string
}

func (s *twoPhaseSink) Open(_ types.Schema, sub, _ int) (SinkWriter, error) {
	return &twoPhaseWriter{s: s, sub: sub}, nil
}

func (s *twoPhaseSink) Commit(pending []checkpoint.PendingFile) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range pending {
		if s.handed[p.Tmp] {
			delete(s.handed, p.Tmp)
			s.committed = append(s.committed, p.Final)
		}
	}
	return nil
}

func (s *twoPhaseSink) Recover(int64, []checkpoint.PendingFile) error { return nil }

func (s *twoPhaseSink) Clean(lineage string, committed bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cleaned = append(s.cleaned, fmt.Sprint(lineage, committed))
	for tmp := range s.handed {
		if strings.HasPrefix(tmp, ".part-"+lineage+"-") {
			delete(s.handed, tmp)
		}
	}
	return nil
}

type twoPhaseWriter struct {
	s    *twoPhaseSink
	sub  int
	rows int
}

func (w *twoPhaseWriter) Write(b arrow.RecordBatch) error { w.rows += int(b.NumRows()); return nil }
func (w *twoPhaseWriter) Close() error                    { return nil }
func (w *twoPhaseWriter) Abort() error                    { return nil }

func (w *twoPhaseWriter) PreCommit(id int64) ([]checkpoint.PendingFile, error) {
	if w.rows == 0 {
		return nil, nil
	}
	w.rows = 0
	tmp := fmt.Sprintf(".part-%s-%d-%d", w.s.job, w.sub, id)
	w.s.mu.Lock()
	w.s.handed[tmp] = true
	w.s.handovers++
	w.s.mu.Unlock()
	return []checkpoint.PendingFile{{Subtask: w.sub, Tmp: tmp, Final: tmp[1:]}}, nil
}

// TestStopMidCheckpointTidiesSinks stops a job while its checkpoint is in
// flight, after the sinks pre-committed to it: Run leaves no pre-committed
// file behind that no complete checkpoint holds.
func TestStopMidCheckpointTidiesSinks(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := false
	inj := errorfs.InjectorFunc(func(op errorfs.Op) error {
		// Writing _metadata: every subtask, the sinks too, has acked.
		if op.Kind == errorfs.OpCreate && strings.HasSuffix(op.Path, "_metadata.tmp") {
			stopped = true
			cancel()
			return errorfs.ErrInjected
		}
		return nil
	})
	mem := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(errorfs.Wrap(mem, inj), "/ck")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][2]int64
	for i := range 200 {
		rows = append(rows, [2]int64{int64(i), int64(i % 7)})
	}
	sink := &twoPhaseSink{job: "q_1_abcd", handed: map[string]bool{}}
	cp := &Checkpointing{FS: mem, WorkDir: "/work", Storage: storage, Job: "q_1_abcd", FirstID: 1}
	err = Run(ctx, countGraph(&memSource{batch: 10, splits: [][][2]int64{rows}}, sink, 2), Options{Checkpoint: cp})
	if !stopped || !errors.Is(err, ErrCanceled) {
		t.Fatalf("stopped %v, err %v; want a stop while checkpoint 1 is written", stopped, err)
	}
	if sink.handovers == 0 {
		t.Fatal("nothing was pre-committed: the test tests nothing")
	}
	if len(sink.handed) > 0 || !slices.Equal(sink.cleaned, []string{"q_1_abcdfalse"}) {
		t.Errorf("left pre-committed %v; cleaned %v", sink.handed, sink.cleaned)
	}
}

// TestStartSettlesAndAbandonsLineages: before a fresh start the pending
// files of the previous lineage's final checkpoint are committed (a crash
// may have come between that checkpoint and its commit) and its hidden
// files removed, and an abandoned lineage's output is removed whole.
func TestStartSettlesAndAbandonsLineages(t *testing.T) {
	mem := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(mem, "/ck")
	if err != nil {
		t.Fatal(err)
	}
	sink := &twoPhaseSink{job: "q_1_new", handed: map[string]bool{".part-q_1_old-0-9": true, ".part-q_1_gone-0-3": true}}
	final := &checkpoint.Metadata{ID: 9, Job: "q_1_old", Finished: true,
		Sinks: []checkpoint.SinkState{{Pending: []checkpoint.PendingFile{{Tmp: ".part-q_1_old-0-9", Final: "part-q_1_old-0-9"}}}}}
	cp := &Checkpointing{FS: mem, WorkDir: "/work", Storage: storage, Job: "q_1_new", FirstID: 10, Settle: final, Abandon: "q_1_gone"}
	rows := [][2]int64{{1, 1}, {2, 2}}
	if err := Run(context.Background(), countGraph(&memSource{batch: 1, splits: [][][2]int64{rows}}, sink, 1), Options{Checkpoint: cp}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(sink.committed, "part-q_1_old-0-9") || sink.handed[".part-q_1_gone-0-3"] {
		t.Errorf("the finished lineage's pending file was not committed: %v", sink.committed)
	}
	if len(sink.cleaned) < 2 || sink.cleaned[0] != "q_1_gonetrue" || sink.cleaned[1] != "q_1_oldfalse" {
		t.Errorf("cleaned %v, want q_1_gone with its committed files, then q_1_old's hidden ones", sink.cleaned)
	}
}

// TestStartSettledCommitsNothing: a fresh start after a finished run that
// ended (Settled) commits nothing of that run's final checkpoint again,
// its commit being done, and still removes its lineage's hidden files.
func TestStartSettledCommitsNothing(t *testing.T) {
	mem := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(mem, "/ck")
	if err != nil {
		t.Fatal(err)
	}
	sink := &twoPhaseSink{job: "q_1_new", handed: map[string]bool{".part-q_1_old-0-9": true}}
	final := &checkpoint.Metadata{ID: 9, Job: "q_1_old", Finished: true,
		Sinks: []checkpoint.SinkState{{Pending: []checkpoint.PendingFile{{Tmp: ".part-q_1_old-0-9", Final: "part-q_1_old-0-9"}}}}}
	cp := &Checkpointing{FS: mem, WorkDir: "/work", Storage: storage, Job: "q_1_new", FirstID: 10, Settle: final, Settled: true}
	rows := [][2]int64{{1, 1}, {2, 2}}
	if err := Run(context.Background(), countGraph(&memSource{batch: 1, splits: [][][2]int64{rows}}, sink, 1), Options{Checkpoint: cp}); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(sink.committed, "part-q_1_old-0-9") {
		t.Errorf("the ended lineage's pending file was committed again: %v", sink.committed)
	}
	if len(sink.cleaned) < 1 || sink.cleaned[0] != "q_1_oldfalse" {
		t.Errorf("cleaned %v, want q_1_old's hidden files first", sink.cleaned)
	}
}
