package connector

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// flinkTable is a nexmark table of Flink's shape (ddl_gen.sql) with
// each ROW's fields in the order given.
func flinkTable(fields map[string][]string, kv ...string) Table {
	s := types.Schema{{Name: "event_type", Type: types.TInt}}
	for _, kind := range []string{"person", "auction", "bid"} {
		var fs []types.Field
		for _, name := range fields[kind] {
			full := nexSchemaOf(kind)
			fs = append(fs, full[full.Index(name)])
		}
		if fs != nil {
			s = append(s, types.Field{Name: kind, Type: types.RowOf(fs)})
		}
	}
	o := map[string]string{"connector": "nexmark", "events.num": "5000", "first-event.rate": "1000", "next-event.rate": "1000"}
	for i := 0; i+1 < len(kv); i += 2 {
		o[kv[i]] = kv[i+1]
	}
	return Table{Name: "datagen", Schema: s, Options: o}
}

// flinkRows reads tab and returns, per kind, the rows of its ROW column
// where it is not NULL, rendered as the flat tables' rows are, checking
// that event_type says the kind of each row.
func flinkRows(t *testing.T, tab Table, batch int) map[string][]string {
	t.Helper()
	src := must(NewSource(tab))
	recs, err := readNexSplits(src, must(src.Splits()), batch)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, rec := range recs {
		kinds := rec.Column(0).(*array.Int32)
		for c := 1; c < int(rec.NumCols()); c++ {
			kind := rec.ColumnName(c)
			st := rec.Column(c).(*array.Struct)
			dt := st.DataType().(*arrow.StructType)
			fields := make([]arrow.Array, st.NumField())
			for k := range fields {
				fields[k] = st.Field(k)
			}
			sub := array.NewRecordBatch(arrow.NewSchema(dt.Fields(), nil), fields, int64(st.Len()))
			for i, row := range rowsOf(sub) {
				if st.IsValid(i) != (nexKindNames[kinds.Value(i)] == kind) {
					t.Fatalf("row %d: event_type %d, %s is NULL: %t", i, kinds.Value(i), kind, st.IsNull(i))
				}
				if st.IsValid(i) {
					out[kind] = append(out[kind], row)
				}
			}
			sub.Release()
		}
		rec.Release()
	}
	return out
}

// TestNexmarkFlinkShape: a table of Flink's shape makes the flat tables'
// events, each kind's fields in its ROW and the other ROWs NULL, in mixed
// batches of any size, with the ROW's fields in any order or only some,
// and with only one kind's events when the query's filter asks for them.
func TestNexmarkFlinkShape(t *testing.T) {
	all := map[string][]string{}
	for _, kind := range []string{"person", "auction", "bid"} {
		all[kind] = nexSchemaOf(kind).Names()
		tab := nexTable(kind, "events.num", "5000")
		rows, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{BatchSize: 64, Alloc: memory.DefaultAllocator})
		if err != nil {
			t.Fatal(err)
		}
		for _, batch := range []int{1, 7, 4096} {
			if got := flinkRows(t, flinkTable(all), batch)[kind]; !slices.Equal(got, rows) {
				t.Fatalf("%s, batches of %d: %d rows, want %d; first %v, want %v", kind, batch, len(got), len(rows), got[:min(1, len(got))], rows[:1])
			}
		}
		only := flinkTable(all)
		only.Equal = map[string]int64{"EVENT_TYPE": int64(slices.Index(nexKindNames[:], kind))}
		got := flinkRows(t, only, 100)
		if len(got) != 1 || !slices.Equal(got[kind], rows) {
			t.Fatalf("event_type = %s: kinds %d, %d rows of %s", kind, len(got), len(got[kind]), kind)
		}
	}

	// Some fields, in another order: the same values.
	some := flinkTable(map[string][]string{"bid": {"extra", "price", "dateTime"}})
	flat := nexTable("bid", "events.num", "5000")
	flat.Schema = types.Schema{nexBidSchema[6], nexBidSchema[2], nexBidSchema[5]}
	rows, err := readAll(t, must(NewSource(flat)), exec.ReadOptions{BatchSize: 64, Alloc: memory.DefaultAllocator})
	if err != nil {
		t.Fatal(err)
	}
	if got := flinkRows(t, some, 33)["bid"]; !slices.Equal(got, rows) {
		t.Fatalf("bid{extra, price, dateTime}: %d rows, want %d", len(got), len(rows))
	}
}

func TestNexmarkFlinkRefusals(t *testing.T) {
	all := map[string][]string{"bid": {"auction", "price"}}
	for _, c := range []struct {
		tab  Table
		want string
	}{
		{flinkTable(all, "next-event.rate", "5"), "'next-event.rate': strand's generator spaces events at one rate"},
		{flinkTable(all, "rate.limited", "true"), "'events-per-second' throttles it"},
		{flinkTable(all, "max-emit-speed", "false"), "'events-per-second' throttles it"},
		{flinkTable(all, "keep-alive", "true"), "ends after events.num"},
		{flinkTable(all, "stop-at", "100"), "bound it with events.num"},
		{flinkTable(all, "rate.shape", "triangle"), "invalid value 'triangle' for option 'rate.shape'"},
		{flinkTable(all, "extended-bid-mode", "true"), "no extended bid mode"},
		{flinkTable(all, "bogus", "1"), "bogus"},
		{Table{Name: "d", Schema: types.Schema{{Name: "bid", Type: types.RowOf([]types.Field{{Name: "nope", Type: types.TInt}})}}, Options: map[string]string{"connector": "nexmark"}}, "field 'nope' of column 'bid' of table d is not a field of nexmark bid events"},
		{Table{Name: "d", Schema: types.Schema{{Name: "bid", Type: types.RowOf([]types.Field{{Name: "price", Type: types.TInt}})}}, Options: map[string]string{"connector": "nexmark"}}, "field 'price' of column 'bid' of nexmark table d must be BIGINT, not INT"},
		{Table{Name: "d", Schema: types.Schema{{Name: "event_type", Type: types.TBigInt}}, Options: map[string]string{"connector": "nexmark"}}, "must be INT"},
		{Table{Name: "d", Schema: types.Schema{{Name: "event_type", Type: types.TInt}, {Name: "price", Type: types.TBigInt}}, Options: map[string]string{"connector": "nexmark"}}, "not one of Flink's nexmark columns"},
		{Table{Name: "d", Schema: types.Schema{{Name: "price", Type: types.TBigInt}}, Options: map[string]string{"connector": "nexmark"}}, "missing required option 'event-type'"},
	} {
		_, err := NewSource(c.tab)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.tab.Options, err, c.want)
		}
		var oe *OptionError
		var ce *ColumnError
		if err != nil && !errors.As(err, &oe) && !errors.As(err, &ce) {
			t.Errorf("%v: %T is neither an option nor a column error", err, err)
		}
	}
	for _, ok := range [][]string{{"rate.shape", "SINE", "rate.period", "10 min", "rate.limited", "false", "max-emit-speed", "true", "keep-alive", "false", "stop-at", "-1"}} {
		if _, err := NewSource(flinkTable(all, ok...)); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
}
