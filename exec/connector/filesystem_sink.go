package connector

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

type fileSink struct {
	cfg    fsConfig
	schema types.Schema // the table's, whose names the JSON keys use
	jobID  string
	job    string   // stable job name; "" when the job does not checkpoint
	parts  []string // partition columns, in declared order

	// mu guards committed: the hidden files the coordinator has made
	// visible, which writers stop handing over; done, the partition
	// directories committed; and nclosed, the writers closed at the end.
	mu        sync.Mutex
	committed map[string]bool
	done      map[string]bool
	nclosed   int
}

// lockName is the lock file in a sink's directory: a job holds it while
// it runs, so that two jobs never write, commit or clean one directory at
// once (see checkpoint.Lock). Hidden, so that readers skip it.
const lockName = ".strand.lock"

// Hold implements exec.Holder. Holding the lock, it removes the hidden
// files of runs without checkpoints that a kill -9 left: no such run is
// writing now, and nothing will ever commit them. A checkpointing job's
// hidden files (their names carry the job) are its own next run's to
// commit or remove.
func (s *fileSink) Hold() (func(), error) {
	l, err := checkpoint.Acquire(filepath.Join(s.cfg.path, lockName))
	if err != nil {
		return nil, fmt.Errorf("filesystem sink: directory %s: %w", s.cfg.path, err)
	}
	entries, err := os.ReadDir(s.cfg.path)
	for _, e := range entries {
		if err == nil && unowned.MatchString(e.Name()) {
			err = os.Remove(filepath.Join(s.cfg.path, e.Name()))
		}
	}
	if err != nil {
		l.Release()
		return nil, fmt.Errorf("filesystem sink: %w", err)
	}
	return l.Release, nil
}

// unowned matches the hidden file of a run without checkpoints, named
// .part-<run id>-<subtask>-<n>.<ext>.inprogress (see prefix).
var unowned = regexp.MustCompile(`^\.part-[0-9a-f]{16}-\d+-\d+\.[a-z]+\.inprogress$`)

// encoder appends one row as one line, line break included.
type encoder interface {
	encode(dst []byte, b arrow.RecordBatch, row int) ([]byte, error)
}

func (s *fileSink) Open(out types.Schema, subtask, n int) (exec.SinkWriter, error) {
	for _, f := range out {
		if f.Type.Kind == types.Invalid {
			return nil, fmt.Errorf("filesystem sink: column '%s' has no type", f.Name)
		}
	}
	names := out.Names()
	if len(s.schema) == len(out) {
		names = s.schema.Names()
	}
	if err := os.MkdirAll(s.cfg.path, 0o755); err != nil {
		return nil, fmt.Errorf("filesystem sink: %w", err)
	}
	if len(s.parts) > 0 {
		w, err := s.openPartitioned(out, names, subtask, n)
		if err != nil {
			return nil, err
		}
		return w, nil
	}
	return s.writer(s.cfg.path, subtask, len(out), s.encoder(names), flushSize+64<<10), nil
}

// writer returns a writer of part files into dir, gathering output in a
// buffer of bufCap bytes to start with.
func (s *fileSink) writer(dir string, subtask, ncols int, enc encoder, bufCap int) *fileWriter {
	return &fileWriter{
		dir:     dir,
		prefix:  s.prefix(subtask),
		ext:     "." + strings.TrimPrefix(s.cfg.format, "debezium-"), // debezium-json's files are .json
		limit:   s.cfg.rollSize,
		ncols:   ncols,
		enc:     enc,
		subtask: subtask,
		sink:    s,
		buf:     make([]byte, 0, bufCap),
	}
}

// rolling rolls over the files of ws that have been open for the
// rolling policy's rollover interval, checking at most every check
// interval (sink.rolling-policy.*). A file's age counts from the first
// check that found it open, so it rolls within rollover plus one check
// interval of its first row, as Flink's timer-driven check does.
type rolling struct {
	next time.Time
}

func (r *rolling) check(cfg *fsConfig, ws []*fileWriter) error {
	now := time.Now()
	if now.Before(r.next) {
		return nil
	}
	r.next = now.Add(cfg.checkEvery)
	for _, w := range ws {
		if w.f == nil && len(w.buf) == 0 {
			continue
		}
		if w.opened.IsZero() {
			w.opened = now
		}
		if now.Sub(w.opened) >= cfg.rollover {
			if err := w.roll(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *fileSink) encoder(names []string) encoder {
	switch s.cfg.format {
	case "csv":
		return &csvEncoder{f: s.cfg.csv, names: names}
	case "debezium-json":
		return newDebeziumEncoder(names, s.cfg.dbz)
	}
	return newJSONEncoder(names)
}

// prefix is the start of a subtask's part-file names: part-<run>-<subtask>-,
// or part-<job>-<run>-<subtask>- for a checkpointing job.
func (s *fileSink) prefix(subtask int) string {
	if s.job != "" {
		return fmt.Sprintf("part-%s-%s-%d-", s.job, s.jobID, subtask)
	}
	return fmt.Sprintf("part-%s-%d-", s.jobID, subtask)
}

// flushSize is how much encoded output is gathered before a write(2).
const flushSize = 1 << 20

// fileWriter writes one subtask's part files. Each is written hidden as
// .part-<job>-<subtask>-<n>.<ext>.inprogress and made visible only by
// Close, so that a reader of the directory never sees a partial file and a
// failed job leaves nothing behind. Files rolled over on size wait for the
// same Close, synced in the background meanwhile (fileSyncer); so does the
// last one, rolled over when the input ends (InputEnded).
type fileWriter struct {
	dir     string
	prefix  string // part-<job>-<subtask>-
	ext     string
	limit   int64
	ncols   int
	enc     encoder
	f       *os.File
	size    int64 // bytes written to f
	seq     int   // n of the file being written
	buf     []byte
	pending []string // finished hidden files, oldest first
	done    bool     // closed or aborted
	subtask int
	sink    *fileSink
	// handed are files pre-committed to a checkpoint and not known to be
	// committed: every later barrier hands them over again.
	handed []checkpoint.PendingFile
	// opened is when the rolling policy first found the current file
	// open; roll is that policy's clock for an unpartitioned writer.
	opened time.Time
	roller rolling
	syncs  fileSyncer
}

func (w *fileWriter) hiddenName(seq int) string {
	return filepath.Join(w.dir, fmt.Sprintf(".%s%d%s.inprogress", w.prefix, seq, w.ext))
}

func (w *fileWriter) Write(b arrow.RecordBatch) error {
	if w.done {
		return errors.New("filesystem sink: write after close")
	}
	if int(b.NumCols()) != w.ncols {
		return fmt.Errorf("filesystem sink: batch has %d columns, want %d", b.NumCols(), w.ncols)
	}
	for row := 0; row < int(b.NumRows()); row++ {
		if err := w.writeRow(b, row); err != nil {
			return err
		}
	}
	return w.roller.check(&w.sink.cfg, []*fileWriter{w})
}

// writeRow encodes one row, rolling over or writing out as needed.
func (w *fileWriter) writeRow(b arrow.RecordBatch, row int) error {
	var err error
	if w.buf, err = w.enc.encode(w.buf, b, row); err != nil {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	if w.size+int64(len(w.buf)) >= w.limit {
		return w.roll()
	}
	if len(w.buf) >= flushSize {
		return w.flush()
	}
	return nil
}

// flush writes the gathered output to the current file, creating it first.
func (w *fileWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if w.f == nil {
		f, err := os.OpenFile(w.hiddenName(w.seq), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("filesystem sink: %w", err)
		}
		w.f, w.size = f, 0
	}
	n, err := w.f.Write(w.buf)
	w.size += int64(n)
	w.buf = w.buf[:0]
	if err != nil {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	return nil
}

// roll finishes the current file, leaving its sync and close to the
// background (settle waits for them), and starts counting the next one.
// It fails if an earlier file's sync has failed: the output is not
// durable, and a job without checkpoints would otherwise learn it only
// at its end.
func (w *fileWriter) roll() error {
	if err := w.syncs.failed(); err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return err
	}
	if w.f == nil {
		return nil
	}
	w.syncs.start(w.f)
	w.pending = append(w.pending, w.f.Name())
	w.f, w.size = nil, 0
	w.opened = time.Time{}
	w.seq++
	return nil
}

// settle rolls the current file over and waits until every finished file
// is synced and closed.
func (w *fileWriter) settle() error {
	if err := w.roll(); err != nil {
		return err
	}
	return w.syncs.wait()
}

// InputEnded implements exec.EndAware: the input has ended, so the last
// file rolls over now, its sync overlapping the other subtasks' work
// instead of waiting for Close. It waits for the syncs, so that one that
// failed fails the subtask, and with it the job, before Close makes any
// subtask's files visible.
func (w *fileWriter) InputEnded() error {
	if w.done {
		return nil
	}
	return w.settle()
}

// Close makes every finished file visible, then syncs the directory so
// that the renames survive a crash.
func (w *fileWriter) Close() error {
	if w.done {
		return nil
	}
	if err := w.settle(); err != nil {
		return err
	}
	w.done = true
	for _, p := range w.pending {
		base := filepath.Base(p)
		visible := filepath.Join(w.dir, strings.TrimSuffix(base[1:], ".inprogress"))
		if err := os.Rename(p, visible); err != nil {
			return fmt.Errorf("filesystem sink: %w", err)
		}
	}
	if len(w.pending) == 0 {
		return nil
	}
	w.pending = nil
	return syncDir(w.dir)
}

// Abort removes the files not made visible. It is idempotent and, after a
// successful Close, does nothing.
func (w *fileWriter) Abort() error {
	var errs []error
	if w.f != nil {
		name := w.f.Name()
		w.f.Close()
		w.f = nil
		w.pending = append(w.pending, name)
	}
	// Files still syncing are closed before they are removed; a failed
	// sync does not matter for files that go.
	_ = w.syncs.wait()
	for _, p := range w.pending {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	w.pending, w.buf, w.done = nil, w.buf[:0], true
	return errors.Join(errs...)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	return nil
}
