package parser

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// vocabulary holds tokens that make up the grammar, so that random token
// strings reach deep constructs far more often than byte-level fuzzing.
var vocabulary = strings.Fields(`
	SELECT FROM WHERE GROUP BY HAVING ORDER LIMIT UNION ALL DISTINCT INTERSECT EXCEPT WITH AS
	VALUES INSERT INTO OVERWRITE CREATE TABLE VIEW TEMPORARY FUNCTION SYSTEM IF NOT EXISTS DROP
	SET RESET EXPLAIN PLAN FOR SHOW TABLES VIEWS DESCRIBE DESC ASC NULLS FIRST LAST
	JOIN LEFT RIGHT FULL INNER OUTER CROSS ON TUMBLE HOP DESCRIPTOR PARTITION PARTITIONED
	WATERMARK PRIMARY KEY ENFORCED CONSTRAINT COMMENT METADATA VIRTUAL SYSTEM_TIME OF
	AND OR IS NULL TRUE FALSE UNKNOWN BETWEEN SYMMETRIC IN LIKE ESCAPE CASE WHEN THEN ELSE END
	CAST TRY_CAST EXTRACT FLOOR CEIL SUBSTRING TRIM BOTH LEADING POSITION COUNT SUM FILTER OVER
	ROWS RANGE UNBOUNDED PRECEDING FOLLOWING CURRENT ROW CURRENT_TIMESTAMP LOCALTIME
	INTERVAL SECOND MINUTE HOUR DAY MONTH YEAR TO DATE TIME TIMESTAMP WITHOUT ZONE LOCAL
	INT BIGINT STRING VARCHAR DECIMAL DOUBLE PRECISION TIMESTAMP_LTZ ARRAY MAP ROW BOOLEAN
	a b t x ts window_start ` + "`a` `select` `` `a``b`" + ` 'x' '' 'it''s' 1 0 2.5 1e3 .5
	( ) ( ) , , . ; * + - / % = <> != < <= > >= || =>
	/*+UID('x')*/ /*+OPTIONS('k'='v'),B(a,1)*/ /*+C*/
`)

func TestRandomTokens(t *testing.T) {
	n := 30000
	if testing.Short() || raceEnabled {
		n = 3000
	}
	r := rand.New(rand.NewPCG(1, 2))
	parsed := 0
	for range n {
		toks := make([]string, 1+r.IntN(24))
		for i := range toks {
			toks[i] = vocabulary[r.IntN(len(vocabulary))]
		}
		// Start most strings with a statement keyword to get past the
		// first token.
		if r.IntN(4) > 0 {
			toks[0] = []string{"SELECT", "SELECT", "CREATE TABLE t (", "INSERT INTO t", "SELECT * FROM"}[r.IntN(5)]
		}
		src := strings.Join(toks, " ")
		stmts, err := Parse(src)
		if err != nil {
			continue
		}
		parsed++
		text := render(stmts)
		again, err := Parse(text)
		if err != nil {
			t.Fatalf("rendering of %q does not parse: %v\n%s", src, err, text)
		}
		if !sameTree(stmts, again) {
			t.Fatalf("rendering of %q parses to a different tree:\n%s\n%s", src, text, render(again))
		}
	}
	t.Logf("%d of %d random inputs parsed", parsed, n)
	if parsed < n/100 {
		t.Errorf("only %d of %d random inputs parsed; the generator is too weak", parsed, n)
	}
}
