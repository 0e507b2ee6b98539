package repl

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/connector"
	"github.com/strandsql/strand/session"
	"github.com/strandsql/strand/types"
)

// maxWidth bounds a column whose type has no bound width (STRING); longer
// values are cut with "...", as Flink's tableau mode does.
const maxWidth = 30

// Result modes, Flink's SQL client's values of
// sql-client.execution.result-mode.
const (
	modeTableau   = "tableau"
	modeChangelog = "changelog"
	modeTable     = "table"
)

// rowKind is a result row's change: +I, -U, +U or -D.
type rowKind string

const (
	insert       rowKind = "+I"
	updateBefore rowKind = "-U"
	updateAfter  rowKind = "+U"
	deleteRow    rowKind = "-D"
)

// statusEvery is how often the status line is redrawn, and how long a
// query runs before it first appears: a query that ends at once needs none.
const statusEvery = 250 * time.Millisecond

// result shows a SELECT's rows as they arrive, in one of the SQL client's
// result modes:
//
//   - tableau prints each row as an aligned table line, keeping none;
//   - changelog does the same with an "op" column of each row's kind
//     (tableau has it too for a result that is a changelog, as Flink's
//     SQL client does);
//   - table keeps the current result, at most maxRows rows (the oldest
//     go first), and redraws it in place on a terminal; elsewhere it
//     prints it once, when the query ends.
//
// On a terminal a status line under the rows shows the job's rows read and
// emitted, its watermark and the time elapsed, redrawn in place; it is
// erased before rows are printed and when the query ends.
type result struct {
	out     io.Writer
	mode    string
	term    bool
	height  int // of the terminal, for the table view
	maxRows int
	job     *session.Job
	start   time.Time
	widths  []int
	right   []bool
	names   []string
	op      bool // rows are shown with their kind

	mu     sync.Mutex
	rows   int64
	kept   [][]string // table mode: the current rows, with their kind first
	drawn  int        // table mode: lines of the last drawing
	dirty  bool
	status bool // the status line is on the screen
	stop   chan struct{}
	ended  sync.WaitGroup
}

// newResult returns the display of a SELECT's rows on out, a terminal of
// that height if term.
func newResult(out io.Writer, res session.Result, term bool, height int) *result {
	r := &result{out: out, mode: res.Mode, term: term, height: height, maxRows: res.MaxRows, job: res.Job,
		start: time.Now(), stop: make(chan struct{})}
	schema := res.Schema
	r.op = r.mode == modeChangelog || r.mode == modeTableau && res.Changelog
	if r.op {
		r.widths, r.right, r.names = []int{2}, []bool{false}, []string{"op"}
	}
	for _, f := range schema {
		w, right := width(f.Type)
		r.widths = append(r.widths, max(w, len([]rune(f.Name))))
		r.right = append(r.right, right)
		r.names = append(r.names, f.Name)
	}
	if r.mode != modeTable {
		var b strings.Builder
		r.header(&b)
		io.WriteString(out, b.String())
	}
	if r.term {
		r.ended.Add(1)
		go r.refresh()
	}
	return r
}

// refresh redraws the status line, and in table mode the table, until the
// query ends.
func (r *result) refresh() {
	defer r.ended.Done()
	t := time.NewTicker(statusEvery)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		r.mu.Lock()
		var b strings.Builder
		r.unstatus(&b)
		if r.mode == modeTable && r.dirty {
			r.redraw(&b)
		}
		r.statusLine(&b)
		io.WriteString(r.out, b.String())
		r.mu.Unlock()
	}
}

// statusLine draws the status line, r.mu held.
func (r *result) statusLine(b *strings.Builder) {
	if r.job == nil {
		return
	}
	wm := "-"
	if vs := r.job.Vertices(); len(vs) > 0 {
		if w := vs[len(vs)-1].Watermark(); w != types.MinWatermark && w != types.MaxWatermark {
			wm = time.UnixMilli(w).UTC().Format("2006-01-02 15:04:05.000")
		}
	}
	fmt.Fprintf(b, "\r\x1b[Krows read %d | rows emitted %d | watermark %s | %.1f s",
		r.job.Metrics.RowsRead.Load(), r.job.Metrics.RowsWritten.Load(), wm, time.Since(r.start).Seconds())
	r.status = true
}

// unstatus erases the status line, r.mu held.
func (r *result) unstatus(b *strings.Builder) {
	if r.status {
		b.WriteString("\r\x1b[K")
		r.status = false
	}
}

// width is the width a value of type t takes at most (maxWidth for
// strings), and whether it is aligned right, as numbers are.
func width(t types.Type) (int, bool) {
	switch t.Kind {
	case types.Boolean:
		return 5, false
	case types.Int:
		return 11, true
	case types.BigInt:
		return 20, true
	case types.Float, types.Double:
		return 12, true
	case types.Decimal:
		return t.Precision + 2, true
	case types.Date:
		return 10, false
	case types.Timestamp, types.TimestampLTZ:
		if t.Precision > 0 {
			return 20 + t.Precision, false
		}
		return 19, false
	}
	return maxWidth, false
}

func (r *result) header(b *strings.Builder) {
	r.border(b)
	r.line(b, r.names)
	r.border(b)
}

func (r *result) border(b *strings.Builder) {
	for _, w := range r.widths {
		b.WriteString("+" + strings.Repeat("-", w+2))
	}
	b.WriteString("+\n")
}

func (r *result) line(b *strings.Builder, cells []string) {
	for i, c := range cells {
		w := r.widths[i]
		if rs := []rune(c); len(rs) > w {
			c = string(rs[:w-3]) + "..."
		}
		pad := strings.Repeat(" ", w-len([]rune(c)))
		if r.right[i] {
			fmt.Fprintf(b, "| %s%s ", pad, c)
		} else {
			fmt.Fprintf(b, "| %s%s ", c, pad)
		}
	}
	b.WriteString("|\n")
}

// add takes rows, each its kind followed by its cells.
func (r *result) add(rows [][]string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rows += int64(len(rows))
	if r.mode == modeTable {
		for _, row := range rows {
			r.apply(row)
		}
		r.dirty = true
		return nil
	}
	var b strings.Builder
	r.unstatus(&b)
	for _, row := range rows {
		cells := row[1:]
		if r.op {
			cells = row
		}
		r.line(&b, cells)
	}
	_, err := io.WriteString(r.out, b.String())
	return err
}

// apply changes the table view by one row: an insert or update-after
// adds it, an update-before or delete removes the latest equal row; the
// oldest rows go when there are more than maxRows.
func (r *result) apply(row []string) {
	switch rowKind(row[0]) {
	case updateBefore, deleteRow:
		for i := len(r.kept) - 1; i >= 0; i-- {
			if equal(r.kept[i][1:], row[1:]) {
				r.kept = append(r.kept[:i], r.kept[i+1:]...)
				return
			}
		}
		return
	case insert, updateAfter:
	}
	if len(r.kept) == r.maxRows {
		copy(r.kept, r.kept[1:])
		r.kept = r.kept[:len(r.kept)-1]
	}
	r.kept = append(r.kept, row)
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// redraw draws the table view over its last drawing, r.mu held: on a
// terminal the rows that fit its height, the newest.
func (r *result) redraw(b *strings.Builder) {
	if r.drawn > 0 {
		fmt.Fprintf(b, "\x1b[%dA\r\x1b[J", r.drawn)
	}
	rows := r.kept
	if r.term {
		if fit := max(1, r.height-6); len(rows) > fit {
			rows = rows[len(rows)-fit:]
		}
	}
	r.header(b)
	for _, row := range rows {
		r.line(b, row[1:])
	}
	r.border(b)
	r.drawn = len(rows) + 4
	r.dirty = false
}

// end prints the footer: the row count and time of a query that ended,
// or that it was stopped.
func (r *result) end(stopped bool) {
	close(r.stop)
	r.ended.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	r.unstatus(&b)
	if r.mode == modeTable {
		r.redraw(&b)
	} else {
		r.border(&b)
	}
	plural := "s"
	if r.rows == 1 {
		plural = ""
	}
	secs := time.Since(r.start).Seconds()
	switch {
	case stopped:
		fmt.Fprintf(&b, "Query stopped after %d row%s (%.2f s)\n", r.rows, plural, secs)
	case r.rows == 0:
		fmt.Fprintf(&b, "Empty set (%.2f s)\n", secs)
	default:
		fmt.Fprintf(&b, "%d row%s in set (%.2f s)\n", r.rows, plural, secs)
	}
	io.WriteString(r.out, b.String())
}

func (r *result) Open(_ types.Schema, _, _ int) (exec.SinkWriter, error) {
	return &resultWriter{r: r}, nil
}

type resultWriter struct {
	r   *result
	buf []byte
}

// Write formats each value as the print sink does (connector.FormatRow
// of a one-column batch, without its "+I[" and "]"), after the row's kind.
func (w *resultWriter) Write(b arrow.RecordBatch) error {
	n := int(b.NumRows())
	if n == 0 {
		return nil
	}
	cols := make([]arrow.RecordBatch, b.NumCols())
	for j := range cols {
		f := b.Schema().Field(j)
		cols[j] = array.NewRecordBatch(arrow.NewSchema([]arrow.Field{f}, nil), []arrow.Array{b.Column(j)}, b.NumRows())
		defer cols[j].Release()
	}
	rows := make([][]string, n)
	for i := range n {
		row := make([]string, 0, len(cols)+1)
		row = append(row, exec.KindOf(b, i).String())
		for _, c := range cols {
			w.buf = connector.FormatRow(w.buf[:0], c, i)
			row = append(row, string(w.buf[3:len(w.buf)-1]))
		}
		rows[i] = row
	}
	return w.r.add(rows)
}

func (w *resultWriter) Close() error { return nil }
func (w *resultWriter) Abort() error { return nil }
