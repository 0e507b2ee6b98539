package planner

import (
	"fmt"
	"strings"

	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/rank"
	"github.com/strandsql/strand/types"
)

// Rank is a Top-N outside windows, Flink's Rank: ROW_NUMBER() OVER
// (PARTITION BY Partition ORDER BY Order), the rows numbered Start..End
// of each partition, updated as rows come and go. With End 1, the row
// number not read, and one ORDER BY column that is a time attribute, it
// is Flink's Deduplicate instead (Dedup).
type Rank struct {
	Input     Node
	Partition []int
	Order     []OrderKey
	// Start and End are the rank range, from 1, both included.
	Start, End int64
	// RowNum appends each row's number as a BIGINT NOT NULL column named
	// RowName.
	RowNum  bool
	RowName string
	// At is the ROW_NUMBER call, for errors about the operator.
	At parser.Pos
	// Func is the ranking function: ROW_NUMBER, RANK or DENSE_RANK.
	Func rank.Func
	// UIDHint is as for WindowAgg.
	UIDHint string
}

func (r *Rank) Inputs() []Node { return []Node{r.Input} }

func (r *Rank) Schema() types.Schema {
	out := append(types.Schema{}, r.Input.Schema()...)
	if r.RowNum {
		out = append(out, types.Field{Name: r.RowName, Type: types.TBigInt.WithNotNull(true)})
	}
	return out
}

// Dedup reports whether the Rank is a deduplication, and which: keep the
// last row (ORDER BY time DESC) or the first, by the event-time column
// timeCol, or by processing time (timeCol -1, ORDER BY a PROCTIME()
// column: the order rows arrive in), as Flink's
// canConvertToDeduplicate decides.
func (r *Rank) Dedup() (keepLast bool, timeCol int, ok bool) {
	if r.Func != rank.RowNumber || r.RowNum || r.Start != 1 || r.End != 1 || len(r.Order) != 1 {
		return false, 0, false
	}
	o := r.Order[0]
	switch r.Input.Schema()[o.Col].Type.Attr {
	case types.RowTime:
		return o.Desc, o.Col, true
	case types.ProcTime:
		return o.Desc, -1, true
	}
	return false, 0, false
}

// Strategy is how the Top-N keeps its rows, by its input's changelog
// mode, as Flink's RankProcessStrategy: AppendFast for insert-only input,
// UpdateFast for an updating input with a unique key that contains the
// partition and an order that only moves rows up (UpdateFastKey),
// Retract for any other.
func (r *Rank) Strategy() rank.Strategy {
	if ChangelogMode(r.Input).InsertOnly() {
		return rank.AppendFast
	}
	if _, ok := r.UpdateFastKey(); ok {
		return rank.UpdateFast
	}
	return rank.Retract
}

// Mode is the Rank's changelog mode. A deduplication by processing time
// that keeps the first row only inserts; one that keeps the last row, or
// the first by event time (an earlier row may come later), updates it.
// A Top-N that numbers its rows updates numbers (-U/+U), inserts and
// deletes them; one that does not inserts the rows that come into the
// first rows and deletes those that leave.
func (r *Rank) Mode() Mode {
	if last, tc, ok := r.Dedup(); ok {
		if !last && tc < 0 {
			return InsertOnly
		}
		return Mode{Kinds: Inserts | UpdatesBefore | UpdatesAfter}
	}
	if r.RowNum {
		return Mode{Kinds: Inserts | UpdatesBefore | UpdatesAfter | Deletes}
	}
	return Mode{Kinds: Inserts | Deletes}
}

func (r *Rank) describe() string {
	in := r.Input.Schema()
	part := make([]string, len(r.Partition))
	for i, c := range r.Partition {
		part[i] = in[c].Name
	}
	if last, tc, ok := r.Dedup(); ok {
		keep, order := "FirstRow", "PROCTIME"
		if last {
			keep = "LastRow"
		}
		if tc >= 0 {
			order = "ROWTIME"
		}
		return fmt.Sprintf("Deduplicate(keep=[%s], key=[%s], order=[%s])", keep, strings.Join(part, ", "), order)
	}
	order := make([]string, len(r.Order))
	for i, o := range r.Order {
		order[i] = in[o.Col].Name + map[bool]string{false: " ASC", true: " DESC"}[o.Desc] +
			map[bool]string{false: " NULLS FIRST", true: " NULLS LAST"}[o.NullsLast]
	}
	strategy := r.Strategy().String()
	if key, ok := r.UpdateFastKey(); ok {
		strategy += strings.ReplaceAll(fmt.Sprint(key), " ", ",")
	}
	d := fmt.Sprintf("Rank(strategy=[%s], rankType=[%s], rankRange=[rankStart=%d, rankEnd=%d], partitionBy=[%s], orderBy=[%s]",
		strategy, r.Func, r.Start, r.End, strings.Join(part, ", "), strings.Join(order, ", "))
	if r.RowNum {
		d += fmt.Sprintf(", rownum=[%s]", r.RowName)
	}
	return d + ")"
}
