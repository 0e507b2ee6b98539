package planner

import (
	"fmt"
	"testing"

	"github.com/strandsql/strand/parser"
)

// TestUpsertKeys derives the upsert keys of queries over an insert-only
// table a (no keys) and a normalized upsert table u (key id), as Flink's
// FlinkRelMdUpsertKeys would, simplified.
func TestUpsertKeys(t *testing.T) {
	s := session(t)
	ddl := `CREATE TABLE a (k BIGINT, v BIGINT, ts TIMESTAMP(3)) WITH ('connector' = 'blackhole');
CREATE TABLE u (id BIGINT, k BIGINT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'u', 'properties.bootstrap.servers' = '127.0.0.1:1', 'key.format' = 'json', 'value.format' = 'json')`
	if err := s.ExecScript(t.Context(), ddl); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ q, want string }{
		{"SELECT k, v FROM a", "[]"},
		{"SELECT k, COUNT(*) FROM a GROUP BY k", "[[0]]"},
		{"SELECT COUNT(*) FROM a", "[[]]"},
		{"SELECT COUNT(*) AS n, k FROM a GROUP BY k", "[[1]]"},
		{"SELECT CAST(k AS STRING), COUNT(*) FROM a GROUP BY k", "[]"},
		{"SELECT id, v FROM u", "[[0]]"},
		{"SELECT v FROM u WHERE id > 1", "[]"},
		{"SELECT * FROM u UNION ALL SELECT * FROM u", "[]"},
		// Both sides unique on the join key: each side's key is one.
		{"SELECT * FROM u JOIN (SELECT k, COUNT(*) AS n FROM a GROUP BY k) g ON u.id = g.k", "[[0 3] [0] [3]]"},
		// The join is hashed by v, which u's key does not contain: a row
		// of u that changes v moves between subtasks, so no key is one.
		{"SELECT * FROM u JOIN (SELECT k, COUNT(*) AS n FROM a GROUP BY k) g ON u.v = g.k", "[]"},
		{"SELECT * FROM u LEFT JOIN (SELECT k, COUNT(*) AS n FROM a GROUP BY k) g ON u.id = g.k", "[[0 3] [0]]"},
		{"SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM a) WHERE rn = 1", "[[0 3] [0]]"},
		{"SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM a) WHERE rn <= 3", "[[0 3]]"},
		// A deduplication (t's ts is its event time): its partition key.
		{"SELECT i, s FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY i ORDER BY ts DESC) AS rn FROM t) WHERE rn = 1", "[[0]]"},
	} {
		stmts, err := parser.Parse(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := PlanQuery(s.Catalog, stmts[0])
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		sink := Optimize(plan).(*Sink)
		if got := fmt.Sprint(UpsertKeys(sink.Input)); got != tc.want {
			t.Errorf("%s: upsert keys %s, want %s\n%s", tc.q, got, tc.want, Explain(sink))
		}
	}
}
