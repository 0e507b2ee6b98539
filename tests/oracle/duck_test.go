package oracle

import (
	"database/sql"
	"fmt"
	"math/big"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

// columns are the three tables' columns as DuckDB reads them from the
// dump, in the order of queries/nexmark/ddl.sql, which the dump keeps.
var columns = map[string]string{
	"person":  `{'id': 'BIGINT', 'name': 'VARCHAR', 'emailAddress': 'VARCHAR', 'creditCard': 'VARCHAR', 'city': 'VARCHAR', 'state': 'VARCHAR', 'dateTime': 'TIMESTAMP', 'extra': 'VARCHAR'}`,
	"auction": `{'id': 'BIGINT', 'itemName': 'VARCHAR', 'description': 'VARCHAR', 'initialBid': 'BIGINT', 'reserve': 'BIGINT', 'dateTime': 'TIMESTAMP', 'expires': 'TIMESTAMP', 'seller': 'BIGINT', 'category': 'BIGINT', 'extra': 'VARCHAR'}`,
	"bid":     `{'auction': 'BIGINT', 'bidder': 'BIGINT', 'price': 'BIGINT', 'channel': 'VARCHAR', 'url': 'VARCHAR', 'dateTime': 'TIMESTAMP', 'extra': 'VARCHAR'}`,
}

// loadEvents opens an in-memory DuckDB holding the dumped tables, read
// from the CSV part files under dir/<table>/: no header, quotes only where
// strand's CSV sink puts them, and a quoted empty field an empty string,
// never NULL (the generator makes no NULLs). It checks each table's size
// against the generator's proportions (1 person, 3 auctions and 46 bids
// in every 50 events).
func loadEvents(t *testing.T, dir string, events int) *sql.DB {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	share := map[string]int{"person": 1, "auction": 3, "bid": 46}
	for table, cols := range columns {
		glob := filepath.Join(dir, table, "*")
		q := fmt.Sprintf(`CREATE TABLE %s AS SELECT * FROM read_csv('%s', header = false, delim = ',', quote = '"', escape = '"',
			allow_quoted_nulls = false, timestampformat = '%%Y-%%m-%%d %%H:%%M:%%S.%%g', columns = %s)`, table, glob, cols)
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("loading %s: %v", table, err)
		}
		var n int
		if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if want := events / 50 * share[table]; n != want {
			t.Fatalf("%s: %d rows dumped, want %d", table, n, want)
		}
	}
	return db
}

// duckRows runs q and returns its rows, sorted, each as its values
// rendered as strand's print sink renders them, joined by ", ", and the
// number of its columns.
func duckRows(db *sql.DB, q string) ([]string, int, error) {
	rs, err := db.Query(q)
	if err != nil {
		return nil, 0, err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, 0, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var rows []string
	fields := make([]string, len(cols))
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return nil, 0, err
		}
		for i, v := range vals {
			if fields[i], err = render(v); err != nil {
				return nil, 0, fmt.Errorf("column %s: %w", cols[i], err)
			}
		}
		rows = append(rows, strings.Join(fields, ", "))
	}
	if err := rs.Err(); err != nil {
		return nil, 0, err
	}
	slices.Sort(rows)
	return rows, len(cols), nil
}

// render writes a DuckDB value as strand prints it: NULL as null,
// timestamps as yyyy-MM-dd HH:mm:ss.SSS, decimals with all their scale's
// digits (BigDecimal.toString of a DECIMAL(p, s) value).
func render(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "null", nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case int32:
		return strconv.FormatInt(int64(v), 10), nil
	case *big.Int:
		return v.String(), nil
	case string:
		return v, nil
	case time.Time:
		return v.UTC().Format("2006-01-02 15:04:05.000"), nil
	case duckdb.Decimal:
		s := new(big.Int).Abs(v.Value).String()
		if sc := int(v.Scale); sc > 0 {
			if len(s) <= sc {
				s = strings.Repeat("0", sc-len(s)+1) + s
			}
			s = s[:len(s)-sc] + "." + s[len(s)-sc:]
		}
		if v.Value.Sign() < 0 {
			s = "-" + s
		}
		return s, nil
	}
	return "", fmt.Errorf("no rendering for %T", v)
}

func TestRender(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{nil, "null"},
		{int64(-7), "-7"},
		{time.Date(2024, 1, 1, 18, 30, 0, 400e6, time.UTC), "2024-01-01 18:30:00.400"},
		{duckdb.Decimal{Scale: 3, Value: big.NewInt(908000)}, "908.000"},
		{duckdb.Decimal{Scale: 3, Value: big.NewInt(-5)}, "-0.005"},
		{duckdb.Decimal{Scale: 0, Value: big.NewInt(12)}, "12"},
	} {
		if got, err := render(c.v); err != nil || got != c.want {
			t.Errorf("render(%v) = %q, %v; want %q", c.v, got, err, c.want)
		}
	}
	if _, err := render(1.5); err == nil {
		t.Error("render of a float64: no error")
	}
}
