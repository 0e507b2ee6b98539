package connector

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// fsConfig is a filesystem table's options.
type fsConfig struct {
	path        string
	format      string // "csv" or "json"
	csv         csvFormat
	failMissing bool // json.fail-on-missing-field
	ignore      bool // <format>.ignore-parse-errors
	rollSize    int64
}

var (
	fsKeys   = []string{"connector", "path", "format", "sink.rolling-policy.file-size"}
	csvKeys  = []string{"csv.field-delimiter", "csv.quote-character", "csv.disable-quote-character", "csv.allow-comments", "csv.ignore-parse-errors", "csv.null-literal"}
	jsonKeys = []string{"json.fail-on-missing-field", "json.ignore-parse-errors"}
)

func parseFilesystem(t Table) (fsConfig, error) {
	o := &opts{conn: "filesystem", m: t.Options}
	// The format's own keys are valid only with that format, as in Flink.
	// Without a known format every format key passes here, so that the
	// error is the missing or bad format, not its options.
	valid := slices.Concat(fsKeys, csvKeys, jsonKeys)
	switch t.Options["format"] {
	case "csv":
		valid = slices.Concat(fsKeys, csvKeys)
	case "json":
		valid = slices.Concat(fsKeys, jsonKeys)
	}
	c := fsConfig{rollSize: 128 << 20}
	err := o.checkKeys(valid, nil)
	if err == nil {
		c.path, err = o.required("path")
	}
	if err == nil {
		c.path, err = localPath(c.path)
	}
	if err == nil {
		c.format, err = o.required("format")
	}
	if err == nil && c.format != "csv" && c.format != "json" {
		err = badChoice("format", c.format, "csv", "json")
	}
	if err != nil {
		return c, err
	}
	if v, ok := o.get("sink.rolling-policy.file-size"); ok {
		n, ok := types.ParseMemorySize(v)
		if !ok || n <= 0 {
			return c, badValue("sink.rolling-policy.file-size", v, "must be a positive memory size such as '128MB'")
		}
		c.rollSize = n
	}
	if c.format == "json" {
		if c.failMissing, err = o.boolean("json.fail-on-missing-field", false); err != nil {
			return c, err
		}
		if c.ignore, err = o.boolean("json.ignore-parse-errors", false); err != nil {
			return c, err
		}
		if c.failMissing && c.ignore {
			return c, &OptionError{Key: "json.fail-on-missing-field", Msg: "options 'json.fail-on-missing-field' and 'json.ignore-parse-errors' cannot both be true"}
		}
		return c, nil
	}
	f := &c.csv
	if f.delim, err = o.char("csv.field-delimiter", ','); err != nil {
		return c, err
	}
	if f.quote, err = o.char("csv.quote-character", '"'); err != nil {
		return c, err
	}
	if f.noQuote, err = o.boolean("csv.disable-quote-character", false); err != nil {
		return c, err
	}
	if f.comments, err = o.boolean("csv.allow-comments", false); err != nil {
		return c, err
	}
	if c.ignore, err = o.boolean("csv.ignore-parse-errors", false); err != nil {
		return c, err
	}
	f.null, f.hasNull = o.get("csv.null-literal")
	if f.delim == f.quote && !f.noQuote {
		return c, badValue("csv.quote-character", string(f.quote), "must differ from the field delimiter")
	}
	return c, nil
}

// rowError is a malformed input row. Decoders fill col and msg; the reader
// adds where the row is.
type rowError struct {
	path string
	line int64
	col  string
	msg  string
}

func (e *rowError) Error() string {
	if e.col == "" {
		return fmt.Sprintf("%s:%d: %s", e.path, e.line, e.msg)
	}
	return fmt.Sprintf("%s:%d: column '%s': %s", e.path, e.line, e.col, e.msg)
}

// Unwrap makes errors.Is(err, exec.ErrBadRow) hold.
func (e *rowError) Unwrap() error { return exec.ErrBadRow }

// decoder turns one line (without its line break) into one row of b, or
// into none for a line without a row (blank, comment). A malformed line is
// a *rowError, and leaves b unchanged.
type decoder interface {
	decode(line []byte, b *batch) error
}

type fileSource struct {
	schema types.Schema
	cfg    fsConfig
}

func (s *fileSource) Schema() types.Schema { return s.schema }

func (s *fileSource) Bounded() bool { return true }

// Splits lists the file, or the visible regular files under the directory,
// sorted by path. Names starting with '.' or '_' are hidden, as in Flink
// and Hadoop: in-progress part files and _SUCCESS markers are not data.
func (s *fileSource) Splits() ([]exec.Split, error) {
	root := s.cfg.path
	fi, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("filesystem source: %w", err)
	}
	if !fi.IsDir() {
		return []exec.Split{{ID: root}}, nil
	}
	var paths []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		if hidden(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			paths = append(paths, p)
		} else if d.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				paths = append(paths, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("filesystem source: %w", err)
	}
	slices.Sort(paths)
	splits := make([]exec.Split, len(paths))
	for i, p := range paths {
		splits[i] = exec.Split{ID: p, Index: i}
	}
	return splits, nil
}

func hidden(name string) bool { return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") }

func (s *fileSource) Open(split exec.Split, off exec.Offset, ro exec.ReadOptions) (exec.SplitReader, error) {
	f, err := os.Open(split.ID)
	if err != nil {
		return nil, fmt.Errorf("filesystem source: %w", err)
	}
	if off.Pos > 0 {
		if _, err := f.Seek(off.Pos, io.SeekStart); err != nil {
			f.Close()
			return nil, fmt.Errorf("filesystem source: %w", err)
		}
	}
	return s.reader(split.ID, f, bufio.NewReaderSize(f, 1<<20), off, ro), nil
}

func (s *fileSource) reader(path string, c io.Closer, br *bufio.Reader, off exec.Offset, ro exec.ReadOptions) *fileReader {
	if ro.BatchSize <= 0 {
		ro.BatchSize = 1024
	}
	r := &fileReader{
		path:    path,
		c:       c,
		r:       br,
		b:       newBatch(s.schema),
		ro:      ro,
		ignore:  s.cfg.ignore,
		maxLine: maxLine,
		pos:     off.Pos,
		line:    off.Line,
	}
	if s.cfg.format == "csv" {
		r.dec = newCSVDecoder(s.schema, s.cfg.csv)
	} else {
		r.dec = newJSONDecoder(s.schema, s.cfg.failMissing)
	}
	return r
}

// maxLine bounds a line's length, so that a file without line breaks fails
// cleanly instead of exhausting memory.
const maxLine = 64 << 20

// maxBatchBytes cuts a batch short: Arrow string offsets are int32.
const maxBatchBytes = 1 << 30

type fileReader struct {
	path    string
	c       io.Closer // nil once closed
	r       *bufio.Reader
	dec     decoder
	b       *batch
	ro      exec.ReadOptions
	ignore  bool
	maxLine int
	pos     int64 // byte offset of the next unread line
	line    int64 // lines consumed
	long    []byte
	eof     bool
	err     error // a failed read stays failed
}

func (r *fileReader) Next() (arrow.RecordBatch, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.eof || r.c == nil {
		return nil, io.EOF
	}
	bad := 0
	defer func() {
		if bad > 0 && r.ro.Metrics != nil {
			r.ro.Metrics.BadRows.Add(int64(bad))
		}
	}()
	start := r.pos
	for r.b.n < r.ro.BatchSize && (r.b.n == 0 || r.pos-start < maxBatchBytes) {
		line, err := r.readLine()
		if err == io.EOF {
			r.eof = true
			break
		}
		if err == nil {
			err = r.dec.decode(line, r.b)
		}
		if err != nil {
			var re *rowError
			if !errors.As(err, &re) {
				r.err = fmt.Errorf("filesystem source: %s: %w", r.path, err)
				return nil, r.err
			}
			if r.ignore {
				bad++
				continue
			}
			re.path, re.line = r.path, r.line
			r.err = re
			return nil, re
		}
	}
	if r.b.n == 0 {
		return nil, io.EOF
	}
	return r.b.flush(r.ro.Alloc), nil
}

// readLine returns the next line without its line break, valid until the
// next call. The bufio buffer holds most lines; only a longer one is copied.
func (r *fileReader) readLine() ([]byte, error) {
	first := r.pos == 0
	s, err := r.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], s...)
		for err == bufio.ErrBufferFull {
			s, err = r.r.ReadSlice('\n')
			if len(r.long) <= r.maxLine {
				r.long = append(r.long, s...)
			} else {
				r.pos += int64(len(s))
			}
		}
		s = r.long
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(s) == 0 {
		return nil, io.EOF
	}
	r.pos += int64(len(s))
	r.line++
	if len(s) > r.maxLine {
		return nil, &rowError{msg: fmt.Sprintf("line longer than %d bytes", r.maxLine)}
	}
	if s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] == '\r' {
		s = s[:len(s)-1]
	}
	if first {
		s = bytes.TrimPrefix(s, []byte("\xef\xbb\xbf"))
	}
	return s, nil
}

func (r *fileReader) Offset() exec.Offset { return exec.Offset{Pos: r.pos, Line: r.line} }

func (r *fileReader) Close() error {
	if r.c == nil {
		return nil
	}
	err := r.c.Close()
	r.c = nil
	return err
}
