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
	"github.com/strandsql/strand/types"
)

// maxWidth bounds a column whose type has no bound width (STRING); longer
// values are cut with "...", as Flink's tableau mode does.
const maxWidth = 30

// tableau prints a SELECT's rows as an aligned table while they arrive,
// as Flink's SQL client's tableau result mode: the header when the job is
// compiled, each batch as its subtask writes it, the footer when it ends.
// It keeps no rows, so memory stays flat however long the query runs.
type tableau struct {
	out    io.Writer
	schema types.Schema
	// op puts each row's kind (+I, -U, +U, -D) in a first column, as
	// Flink's tableau does, for a result that is a changelog.
	op     bool
	widths []int
	right  []bool
	start  time.Time

	mu   sync.Mutex
	rows int64
	buf  []byte
}

func newTableau(out io.Writer, schema types.Schema, changelog bool) *tableau {
	t := &tableau{out: out, schema: schema, start: time.Now(), op: changelog}
	var names []string
	if changelog {
		t.widths, t.right, names = append(t.widths, 2), append(t.right, false), append(names, "op")
	}
	for _, f := range schema {
		w, right := width(f.Type)
		t.widths = append(t.widths, max(w, len([]rune(f.Name))))
		t.right = append(t.right, right)
	}
	var b strings.Builder
	t.border(&b)
	for _, f := range schema {
		names = append(names, f.Name)
	}
	t.line(&b, names)
	t.border(&b)
	io.WriteString(out, b.String())
	return t
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

func (t *tableau) border(b *strings.Builder) {
	for _, w := range t.widths {
		b.WriteString("+" + strings.Repeat("-", w+2))
	}
	b.WriteString("+\n")
}

func (t *tableau) line(b *strings.Builder, cells []string) {
	for i, c := range cells {
		w := t.widths[i]
		if r := []rune(c); len(r) > w {
			c = string(r[:w-3]) + "..."
		}
		pad := strings.Repeat(" ", w-len([]rune(c)))
		if t.right[i] {
			fmt.Fprintf(b, "| %s%s ", pad, c)
		} else {
			fmt.Fprintf(b, "| %s%s ", c, pad)
		}
	}
	b.WriteString("|\n")
}

// end prints the footer: the row count and time of a query that ended,
// or that it was stopped.
func (t *tableau) end(stopped bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	t.border(&b)
	plural := "s"
	if t.rows == 1 {
		plural = ""
	}
	if stopped {
		fmt.Fprintf(&b, "Query stopped after %d row%s (%.2f s)\n", t.rows, plural, time.Since(t.start).Seconds())
	} else if t.rows == 0 {
		fmt.Fprintf(&b, "Empty set (%.2f s)\n", time.Since(t.start).Seconds())
	} else {
		fmt.Fprintf(&b, "%d row%s in set (%.2f s)\n", t.rows, plural, time.Since(t.start).Seconds())
	}
	io.WriteString(t.out, b.String())
}

func (t *tableau) Open(_ types.Schema, _, _ int) (exec.SinkWriter, error) {
	return &tableauWriter{t: t}, nil
}

type tableauWriter struct {
	t     *tableau
	cells []string
	buf   []byte
}

// Write formats each value as the print sink does (connector.FormatRow
// of a one-column batch, without its "+I[" and "]").
func (w *tableauWriter) Write(b arrow.RecordBatch) error {
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
	var out strings.Builder
	for row := range n {
		w.cells = w.cells[:0]
		if w.t.op {
			w.cells = append(w.cells, exec.KindOf(b, row).String())
		}
		for _, c := range cols {
			w.buf = connector.FormatRow(w.buf[:0], c, row)
			w.cells = append(w.cells, string(w.buf[3:len(w.buf)-1]))
		}
		w.t.line(&out, w.cells)
	}
	w.t.mu.Lock()
	defer w.t.mu.Unlock()
	w.t.rows += int64(n)
	_, err := io.WriteString(w.t.out, out.String())
	return err
}

func (w *tableauWriter) Close() error { return nil }
func (w *tableauWriter) Abort() error { return nil }
