package connector

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/types"
)

// A partitioned filesystem sink writes each row into the directory of its
// partition values, <path>/k1=v1/k2=v2/, as Flink does: keys and values
// escaped as Flink escapes path names, NULL and the empty string as
// partition.default-name, and the partition columns left out of the file.
// Each directory has a fileWriter of its own, so rolling, pre-commit and
// commit work per directory as they do unpartitioned.

// partitionWriter is one subtask's writer of a partitioned table.
type partitionWriter struct {
	sink    *fileSink
	subtask int
	ncols   int
	keys    []int // columns of the rows that are partition columns
	names   []string
	file    []int // the others, in the file
	enc     encoder
	dirs    map[string]*fileWriter
	order   []*fileWriter // in the order the directories were first written
	key     []byte        // scratch: a row's partition directory
	raw     []byte        // scratch: a row's partition values (rawOf)
	prev    []byte        // the previous row's, whose directory key is
	val     []byte        // scratch: a partition value
	def     []byte        // partition.default-name, escaped
	done    bool          // closed or aborted
	// n is the number of the sink's subtasks; wm this one's watermark,
	// handed over at each barrier for the partition commit.
	n      int
	wm     int64
	roller rolling
}

func (s *fileSink) openPartitioned(out types.Schema, names []string, subtask, n int) (*partitionWriter, error) {
	w := &partitionWriter{sink: s, subtask: subtask, ncols: len(out), dirs: map[string]*fileWriter{}, n: n, wm: math.MinInt64}
	var fileNames []string
	for i, n := range names {
		if slices.Contains(s.parts, n) {
			continue
		}
		w.file = append(w.file, i)
		fileNames = append(fileNames, n)
	}
	for _, p := range s.parts {
		i := slices.Index(names, p)
		if i < 0 {
			return nil, fmt.Errorf("filesystem sink: no partition column '%s' among the columns written (%s)", p, strings.Join(names, ", "))
		}
		w.keys = append(w.keys, i)
		w.names = append(w.names, p)
	}
	w.def = escapePart(nil, []byte(s.cfg.defaultPart))
	w.enc = s.encoder(fileNames)
	return w, nil
}

func (w *partitionWriter) Write(b arrow.RecordBatch) error {
	if int(b.NumCols()) != w.ncols {
		return fmt.Errorf("filesystem sink: batch has %d columns, want %d", b.NumCols(), w.ncols)
	}
	if w.done {
		return errors.New("filesystem sink: write after close")
	}
	// The file's columns, without copying: the batch's own fields, so
	// that their types match whatever the batch carries.
	cols := make([]arrow.Array, len(w.file))
	fields := make([]arrow.Field, len(w.file))
	for i, c := range w.file {
		cols[i], fields[i] = b.Column(c), b.Schema().Field(c)
	}
	fb := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, b.NumRows())
	defer fb.Release()
	var fw *fileWriter
	for row := 0; row < int(b.NumRows()); row++ {
		// Rows come in runs of one partition (q10's minutes): the
		// directory is looked up only when the values change.
		w.raw = w.rawOf(w.raw[:0], b, row)
		if fw == nil || !bytes.Equal(w.raw, w.prev) {
			w.raw, w.prev = w.prev, w.raw
			w.key = w.dirOf(w.key[:0], b, row)
			if fw = w.dirs[string(w.key)]; fw == nil {
				var err error
				if fw, err = w.open(string(w.key)); err != nil {
					return err
				}
			}
		}
		if err := fw.writeRow(fb, row); err != nil {
			return err
		}
	}
	return w.roller.check(&w.sink.cfg, w.order)
}

// Watermark implements exec.Watermarker.
func (w *partitionWriter) Watermark(wm int64) error {
	w.wm = max(w.wm, wm)
	return nil
}

// rawOf appends row's partition values, unescaped, each behind its
// validity.
func (w *partitionWriter) rawOf(dst []byte, b arrow.RecordBatch, row int) []byte {
	for _, c := range w.keys {
		a := b.Column(c)
		if !a.IsValid(row) {
			dst = append(dst, 0)
			continue
		}
		dst = append(dst, 1)
		n := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		dst = partText(dst, a, row)
		binary.LittleEndian.PutUint32(dst[n:], uint32(len(dst)-n-4))
	}
	return dst
}

// dirOf appends the partition directory of row, relative to the table's
// path.
func (w *partitionWriter) dirOf(dst []byte, b arrow.RecordBatch, row int) []byte {
	for j, c := range w.keys {
		if j > 0 {
			dst = append(dst, filepath.Separator)
		}
		dst = escapePart(dst, []byte(w.names[j]))
		dst = append(dst, '=')
		a := b.Column(c)
		w.val = w.val[:0]
		if a.IsValid(row) {
			w.val = partText(w.val, a, row)
		}
		if len(w.val) == 0 {
			dst = append(dst, w.def...)
			continue
		}
		dst = escapePart(dst, w.val)
	}
	return dst
}

// partText appends a partition value as Flink names it: timestamps as
// Java's LocalDateTime (2024-01-01T10:00, seconds and milliseconds only
// when not zero) and Instant (2024-01-01T10:00:00Z), the rest as the
// files show them.
func partText(dst []byte, a arrow.Array, i int) []byte {
	ts, ok := a.(*array.Timestamp)
	if !ok {
		return appendValue(dst, a, i, false)
	}
	start := len(dst)
	dst = types.AppendTimestamp(dst, int64(ts.Value(i))) // yyyy-MM-dd HH:mm:ss.SSS
	text := dst[start:]
	zoned := ts.DataType().(*arrow.TimestampType).TimeZone != ""
	if len(text) == 23 {
		text[10] = 'T'
		switch {
		case !zoned && string(text[16:]) == ":00.000":
			dst = dst[:start+16]
		case string(text[19:]) == ".000":
			dst = dst[:start+19]
		}
	}
	if zoned {
		dst = append(dst, 'Z')
	}
	return dst
}

// open starts the writer of a partition directory, creating it and
// syncing its parents so that the directory survives a crash.
func (w *partitionWriter) open(rel string) (*fileWriter, error) {
	root := filepath.Clean(w.sink.cfg.path)
	dir := filepath.Join(root, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("filesystem sink: %w", err)
	}
	for d := dir; d != root && len(d) > len(root); d = filepath.Dir(d) {
		if err := syncDir(filepath.Dir(d)); err != nil {
			return nil, err
		}
	}
	fw := w.sink.writer(dir, w.subtask, len(w.file), w.enc, 64<<10)
	w.dirs[rel] = fw
	w.order = append(w.order, fw)
	return fw, nil
}

// PreCommit implements exec.PreCommitter: the pending files of every
// partition directory.
func (w *partitionWriter) PreCommit(id int64) ([]checkpoint.PendingFile, error) {
	var all []checkpoint.PendingFile
	for _, fw := range w.order {
		p, err := fw.PreCommit(id)
		if err != nil {
			return nil, err
		}
		all = append(all, p...)
	}
	if w.sink.cfg.commit != nil {
		all = append(all, checkpoint.PendingFile{Subtask: w.subtask, Progress: &checkpoint.SinkProgress{Watermark: w.wm, Of: w.n}})
	}
	return all, nil
}

// InputEnded implements exec.EndAware: every partition directory's last
// file rolls over and is synced, so that a failed sync fails the subtask
// before Close makes any subtask's files visible.
func (w *partitionWriter) InputEnded() error {
	if w.done {
		return nil
	}
	for _, fw := range w.order {
		if err := fw.InputEnded(); err != nil {
			return err
		}
	}
	return nil
}

func (w *partitionWriter) Close() error {
	w.done = true
	for _, fw := range w.order {
		if err := fw.Close(); err != nil {
			return err
		}
	}
	return w.sink.closed(w.n)
}

func (w *partitionWriter) Abort() error {
	w.done = true
	var errs []error
	for _, fw := range w.order {
		errs = append(errs, fw.Abort())
	}
	return errors.Join(errs...)
}

// dataDirs lists the directories a sink's files can be in: its path, and
// for a partitioned table the visible directories below it, up to the
// depth of the partition directories.
func (s *fileSink) dataDirs() ([]string, error) {
	root := filepath.Clean(s.cfg.path)
	dirs := []string{root}
	if len(s.parts) == 0 {
		return dirs, nil
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root || !d.IsDir() {
			return nil
		}
		if hidden(d.Name()) {
			return filepath.SkipDir
		}
		dirs = append(dirs, p)
		if strings.Count(p[len(root):], string(filepath.Separator)) >= len(s.parts) {
			return filepath.SkipDir
		}
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		return dirs, nil
	}
	return dirs, err
}
