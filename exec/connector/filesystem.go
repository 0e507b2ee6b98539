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
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// fsConfig is a filesystem table's options.
type fsConfig struct {
	path        string
	format      string // "csv", "json" or "debezium-json"
	csv         csvFormat
	dbz         debeziumFormat
	failMissing bool // json.fail-on-missing-field
	ignore      bool // <format>.ignore-parse-errors
	header      bool // csv.ignore-first-line
	rollSize    int64
	splitSize   int64  // source.split-size
	defaultPart string // partition.default-name
	// commit is how a partitioned sink commits partitions, or nil;
	// rollover and checkEvery are the rolling policy's time options.
	commit               *partitionCommit
	rollover, checkEvery time.Duration
}

var (
	fsKeys   = []string{"connector", "path", "format", "partition.default-name", "sink.rolling-policy.file-size", "source.split-size"}
	csvKeys  = []string{"csv.field-delimiter", "csv.quote-character", "csv.disable-quote-character", "csv.allow-comments", "csv.ignore-parse-errors", "csv.null-literal", "csv.ignore-first-line"}
	jsonKeys = []string{"json.fail-on-missing-field", "json.ignore-parse-errors"}
)

func parseFilesystem(t Table) (fsConfig, error) {
	o := &opts{conn: "filesystem", m: t.Options}
	// The format's own keys are valid only with that format, as in Flink.
	// Without a known format every format key passes here, so that the
	// error is the missing or bad format, not its options.
	valid := slices.Concat(fsKeys, commitKeys, alignKeys, csvKeys, jsonKeys, debeziumKeys)
	switch t.Options["format"] {
	case "csv":
		valid = slices.Concat(fsKeys, commitKeys, alignKeys, csvKeys)
	case "json":
		valid = slices.Concat(fsKeys, commitKeys, alignKeys, jsonKeys)
	case "debezium-json":
		valid = slices.Concat(fsKeys, commitKeys, alignKeys, debeziumKeys)
	}
	// Flink's rolling defaults: a part file rolls after 30 minutes, checked
	// every minute.
	c := fsConfig{rollSize: 128 << 20, splitSize: defaultSplitSize, rollover: 30 * time.Minute, checkEvery: time.Minute}
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
	if err == nil && c.format != "csv" && c.format != "json" && c.format != "debezium-json" {
		err = badChoice("format", c.format, "csv", "json", "debezium-json")
	}
	if err != nil {
		return c, err
	}
	c.defaultPart = o.str("partition.default-name", "__DEFAULT_PARTITION__")
	if c.defaultPart == "" {
		return c, badValue("partition.default-name", "", "must not be empty")
	}
	if v, ok := o.get("sink.rolling-policy.file-size"); ok {
		n, ok := types.ParseMemorySize(v)
		if !ok || n <= 0 {
			return c, badValue("sink.rolling-policy.file-size", v, "must be a positive memory size such as '128MB'")
		}
		c.rollSize = n
	}
	for key, d := range map[string]*time.Duration{"sink.rolling-policy.rollover-interval": &c.rollover, "sink.rolling-policy.check-interval": &c.checkEvery} {
		if v, ok := o.get(key); ok {
			n, err := types.ParseDuration(v)
			if err != nil || n <= 0 {
				return c, badValue(key, v, "must be a positive duration such as '1 min'")
			}
			*d = n
		}
	}
	if c.commit, err = parseCommit(o); err != nil {
		return c, err
	}
	if v, ok := o.get("source.split-size"); ok {
		n, ok := types.ParseMemorySize(v)
		if !ok || n <= 0 {
			return c, badValue("source.split-size", v, "must be a positive memory size such as '8MB'")
		}
		c.splitSize = n
	}
	if c.format == "debezium-json" {
		c.dbz, c.ignore, err = parseDebezium(o, "")
		return c, err
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
	if c.header, err = o.boolean("csv.ignore-first-line", false); err != nil {
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
	schema types.Schema // the columns the source returns: the table's, or those read
	file   types.Schema // the columns decoded from the files, in file order
	// fields is the number of columns in the files, decoded or not; slot
	// maps each of them to its index in file, or to -1 for a column the
	// query does not read, which a decoder skips without parsing it.
	fields int
	slot   []int
	// cols maps each column of schema to its index in file, or to -1 for
	// a metadata or partition column, whose value is the split's.
	cols  []int
	meta  []string // per column of schema, its metadata key; nil if none
	parts []string // partition columns, in declared order
	cfg   fsConfig
	arrow *arrow.Schema // schema's
	// quiet overrides the const quiet (tests).
	quiet time.Duration
}

// newFileSource makes the source of t. With t.Read, it returns only the
// columns read, and its decoders skip the others in the files: they are
// neither parsed nor checked, as in Flink, whose file formats take the
// projection pushed into the source.
func newFileSource(t Table, c fsConfig) *fileSource {
	s := &fileSource{parts: t.Partitions, cfg: c}
	inFile := fileColumns(t)
	s.fields = len(inFile)
	s.slot = make([]int, len(inFile))
	for k := range s.slot {
		s.slot[k] = -1
	}
	for i, f := range t.Schema {
		if t.Read != nil && !t.Read[i] {
			continue
		}
		col := -1
		if k := slices.Index(inFile, i); k >= 0 {
			col = len(s.file)
			s.slot[k] = col
			s.file = append(s.file, f)
		}
		s.cols = append(s.cols, col)
		s.schema = append(s.schema, f)
		if t.Metadata != nil {
			s.meta = append(s.meta, t.Metadata[i])
		}
	}
	s.arrow = s.schema.Arrow()
	return s
}

func (s *fileSource) Schema() types.Schema { return s.schema }

func (s *fileSource) Bounded() bool { return true }

// InOrder makes each subtask read its files and byte ranges one after
// another (exec.InOrder).
func (s *fileSource) InOrder() bool { return true }

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
		return s.ranges(nil, root, fi), nil
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
	var splits []exec.Split
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("filesystem source: %w", err)
		}
		splits = s.ranges(splits, p, fi)
	}
	return splits, nil
}

func hidden(name string) bool { return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") }

func (s *fileSource) Open(split exec.Split, off exec.Offset, ro exec.ReadOptions) (exec.SplitReader, error) {
	path := splitPath(split)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("filesystem source: %w", err)
	}
	skip := off.Pos == 0 && split.Start > 0 // a range's first line is the first that starts in it
	if seek := off.Pos; seek > 0 || skip {
		if skip {
			seek = split.Start - 1
		}
		if _, err := f.Seek(seek, io.SeekStart); err != nil {
			f.Close()
			return nil, fmt.Errorf("filesystem source: %w", err)
		}
	}
	buf := fileBuffer
	if split.Start > 0 || split.End > 0 {
		buf = rangeBuffer // a file of many ranges has as many readers open
		if n := split.End - split.Start; split.End > 0 && n < int64(buf) {
			buf = int(max(n, 4<<10))
		}
	}
	if ro.Peek {
		buf = min(buf, peekBuffer)
	}
	fi, err := f.Stat()
	regular := err == nil && fi.Mode().IsRegular()
	if regular {
		// A small file needs no large buffer: a directory of many small
		// files is read one file after another, each allocating its own.
		buf = min(buf, int(max(fi.Size()-off.Pos, 4<<10)))
	}
	br, pool := newReader(f, buf)
	r := s.reader(path, f, br, off, ro)
	r.pool = pool
	r.start, r.end, r.skip = split.Start, split.End, skip
	r.header = s.cfg.header && off.Pos == 0 && split.Start == 0
	if regular {
		r.stat = f.Stat // a pipe's end is final: only a file can grow
	}
	if len(s.file) < len(s.schema) {
		if r.split, err = s.splitValues(path, f); err != nil {
			r.Close() // closes f and gives the read buffer back to its pool
			return nil, fmt.Errorf("filesystem source: %w", err)
		}
	}
	return r, nil
}

func (s *fileSource) reader(path string, c io.Closer, br *bufio.Reader, off exec.Offset, ro exec.ReadOptions) *fileReader {
	if ro.BatchSize <= 0 {
		ro.BatchSize = 1024
	}
	r := &fileReader{
		path:    path,
		c:       c,
		r:       br,
		b:       newBatch(s.file),
		src:     s,
		ro:      ro,
		ignore:  s.cfg.ignore,
		maxLine: maxLine,
		pos:     off.Pos,
		line:    off.Line,
		quiet:   s.quiet,
	}
	if r.quiet == 0 {
		r.quiet = quiet
	}
	r.b.use(ro.Alloc)
	switch s.cfg.format {
	case "csv":
		r.dec = newCSVDecoder(s.file, s.slot, s.cfg.csv)
	case "debezium-json":
		r.dec = newDebeziumDecoder(s.file, s.cfg.dbz)
	default:
		r.dec = newJSONDecoder(s.file, s.cfg.failMissing)
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
	// start and end are the split's byte range (exec.Split): the reader
	// returns the lines that start before end (0: the file's end), and
	// counts lines from start, so an error in a range that does not start
	// the file finds its line number by counting (lineNumber).
	start, end int64
	lineAt     int64 // byte offset of the line last taken
	// skip is set until the reader has passed the line its range starts
	// in (skipToLine), skipped counting the bytes passed from start-1.
	skip    bool
	skipped int64
	// header is set until the header line of a file with
	// csv.ignore-first-line has been passed; meanwhile Offset stays the
	// zero offset, so that a restore skips the header again rather than
	// read it as a row after the comments before it.
	header bool
	// held gathers a line over several reads (its first maxLine+1 bytes);
	// heldN is its length so far.
	held  []byte
	heldN int64
	// stat describes the file, to tell whether it is still growing; nil
	// for input that cannot grow.
	stat     func() (os.FileInfo, error)
	quiet    time.Duration
	waitFrom time.Time // when the reader found the last line unfinished
	eof      bool
	err      error // a failed read stays failed
	src      *fileSource
	// pool takes r's buffer back when r closes; nil for a buffer of a
	// size not pooled (readers.go).
	pool *sync.Pool
	// split holds, for the columns not in the file, their values in this
	// split (one row); nil when every column is in the file.
	split *batch
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
	slept := false
	for r.b.n < r.ro.BatchSize && (r.b.n == 0 || r.pos-start < maxBatchBytes) {
		line, err := r.readLine()
		if err == io.EOF {
			r.eof = true
			break
		}
		if err == errWait {
			// Return the rows read so far, or after a pause none: Next
			// never blocks for long.
			if r.b.n > 0 || slept {
				return r.flush(), nil
			}
			time.Sleep(pollEvery)
			slept = true
			continue
		}
		if r.header && (err == nil || errors.As(err, new(*rowError))) {
			// The header is the first line that is not empty or a
			// comment, as Jackson's skipFirstDataRow in Flink: names, not
			// a row, however long.
			if err != nil || !r.src.cfg.csv.skips(line) {
				r.header = false
			}
			continue
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
			re.path, re.line = r.path, r.lineNumber()
			r.err = re
			return nil, re
		}
	}
	if r.b.n == 0 {
		return nil, io.EOF
	}
	return r.flush(), nil
}

// readLine returns the next line without its line break, valid until the
// next call. The bufio buffer holds most lines; only a longer one, or one
// gathered over several reads, is copied. It returns errWait when the file
// ends in a line without a line break that may still be being written.
func (r *fileReader) readLine() ([]byte, error) {
	if r.skip {
		if err := r.skipToLine(); err != nil {
			return nil, err
		}
	}
	if r.end > 0 && r.pos >= r.end && r.heldN == 0 {
		return nil, io.EOF // the next line starts in the next range
	}
	for {
		s, err := r.r.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return nil, err
		}
		if err == nil && r.heldN == 0 {
			return r.take(s, int64(len(s)))
		}
		if len(r.held) <= r.maxLine {
			r.held = append(r.held, s...)
		}
		r.heldN += int64(len(s))
		switch {
		case err == nil:
			return r.take(r.held, r.heldN)
		case err == bufio.ErrBufferFull:
			continue
		case r.heldN == 0:
			return nil, io.EOF
		}
		st, err := r.settle(r.pos + r.heldN)
		switch {
		case err != nil:
			return nil, err
		case st == lineWait:
			return nil, errWait
		case st == lineDone:
			return r.take(r.held, r.heldN)
		}
		// lineGrown: read on.
	}
}

// errWait says the last line is not known to be complete yet.
var errWait = errors.New("last line may still be being written")

const (
	lineDone  = iota // the file has stopped growing: the line is complete
	lineGrown        // the file grew: read on
	lineWait         // not known yet
)

// quiet is how long a file must have stopped growing before its last
// line, without a line break, counts as complete; pollEvery is how often
// a reader looks again meanwhile.
const (
	quiet     = time.Second
	pollEvery = 50 * time.Millisecond
)

// settle decides about a last line without a line break, which a writer
// may not have finished, the file having been read up to end: the line is
// complete once the file's size is end and the file has been quiet for r.quiet, by its modification time
// or by the reader watching it since it first reached the line (which
// covers a clock ahead of the reader's).
func (r *fileReader) settle(end int64) (int, error) {
	if r.stat == nil {
		return lineDone, nil
	}
	fi, err := r.stat()
	if err != nil {
		return 0, err
	}
	switch {
	case fi.Size() > end:
		r.waitFrom = time.Time{}
		return lineGrown, nil
	case fi.Size() < end:
		return 0, fmt.Errorf("file shrank from %d to %d bytes while being read", end, fi.Size())
	}
	now := time.Now()
	if r.waitFrom.IsZero() {
		r.waitFrom = now
	}
	if now.Sub(fi.ModTime()) >= r.quiet || now.Sub(r.waitFrom) >= r.quiet {
		return lineDone, nil
	}
	return lineWait, nil
}

// take consumes a whole line of n bytes whose first bytes are s, and
// returns it without its line break.
func (r *fileReader) take(s []byte, n int64) ([]byte, error) {
	first := r.pos == 0
	r.lineAt = r.pos
	r.pos += n
	r.line++
	r.held, r.heldN, r.waitFrom = r.held[:0], 0, time.Time{}
	if n > int64(r.maxLine) {
		return nil, &rowError{msg: fmt.Sprintf("line longer than %d bytes", r.maxLine)}
	}
	if len(s) > 0 && s[len(s)-1] == '\n' {
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

func (r *fileReader) Offset() exec.Offset {
	if r.header {
		return exec.Offset{}
	}
	return exec.Offset{Pos: r.pos, Line: r.line}
}

func (r *fileReader) Close() error {
	if r.c == nil {
		return nil
	}
	err := r.c.Close()
	r.c = nil
	if r.pool != nil {
		r.r.Reset(nil)
		r.pool.Put(r.r)
		r.r, r.pool = nil, nil
	}
	return err
}
