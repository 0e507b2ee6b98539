package connector

import (
	"errors"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

var printKeys = []string{"connector", "print-identifier"}

func parsePrint(t Table) (string, error) {
	o := &opts{conn: "print", m: t.Options}
	if err := o.checkKeys(printKeys, nil); err != nil {
		return "", err
	}
	id, ok := o.get("print-identifier")
	if !ok {
		return "", nil
	}
	return id + "> ", nil
}

// printMu keeps the lines of concurrent print writers, of one sink or of
// several sharing a terminal, from interleaving.
var printMu sync.Mutex

type printSink struct {
	out    io.Writer
	prefix string // "<print-identifier>> ", or empty
	header []byte // written before the first subtask opens, or nil
	once   sync.Once
}

// NewResults returns the sink of a SELECT's rows in `strand run`: the print
// sink's rows, after a header line that names the columns in the rows'
// own format, the row kind's place taken by "op" as in Flink's changelog
// results:
//
//	op[user_id, amount]
//	+I[1, 1.5]
//
// The header is written once, when the job first opens the sink, so a job
// restarted from a checkpoint with the same sink does not repeat it.
func NewResults(out io.Writer, schema types.Schema) exec.Sink {
	h := []byte("op[")
	for i, f := range schema {
		if i > 0 {
			h = append(h, ", "...)
		}
		h = append(h, f.Name...)
	}
	return &printSink{out: out, header: append(h, "]\n"...)}
}

func (s *printSink) Open(_ types.Schema, _, _ int) (exec.SinkWriter, error) {
	var err error
	if s.header != nil {
		s.once.Do(func() {
			printMu.Lock()
			_, err = s.out.Write(s.header)
			printMu.Unlock()
		})
	}
	if err != nil {
		return nil, err
	}
	return &printWriter{sink: s}, nil
}

// printWriter renders a whole batch and writes it with one Write call, under
// printMu. Unlike Flink it never adds the subtask number to the prefix, so
// that the output does not depend on the parallelism.
type printWriter struct {
	sink *printSink
	buf  []byte
	done bool
}

func (w *printWriter) Write(b arrow.RecordBatch) error {
	if w.done {
		return errors.New("print sink: write after close")
	}
	buf := w.buf[:0]
	for row := 0; row < int(b.NumRows()); row++ {
		buf = append(buf, w.sink.prefix...)
		buf = FormatRow(buf, b, row)
		buf = append(buf, '\n')
	}
	w.buf = buf
	if len(buf) == 0 {
		return nil
	}
	printMu.Lock()
	_, err := w.sink.out.Write(buf)
	printMu.Unlock()
	return err
}

func (w *printWriter) Close() error { w.done = true; return nil }

func (w *printWriter) Abort() error { w.done = true; return nil }

// FormatRow appends row of b as the print sink shows it: the row kind and
// the values, as Flink's Row.toString, e.g. +I[1, null, 2024-01-01
// 10:00:00.000, abc]. NULL is null, booleans are true/false, strings are
// unquoted, timestamps are yyyy-MM-dd HH:mm:ss.SSS (TIMESTAMP_LTZ as UTC
// wall-clock time), floats as Java prints them. The kind is the row's
// (exec.KindOf): +I, -U, +U or -D.
func FormatRow(dst []byte, b arrow.RecordBatch, row int) []byte {
	dst = append(dst, exec.KindOf(b, row).String()...)
	dst = append(dst, '[')
	for j, a := range b.Columns() {
		if j > 0 {
			dst = append(dst, ", "...)
		}
		if a.IsNull(row) {
			dst = append(dst, "null"...)
		} else {
			dst = appendValue(dst, a, row, false)
		}
	}
	return append(dst, ']')
}
