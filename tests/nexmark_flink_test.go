package tests

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/strandsql/strand/queries/nexmark"
	"github.com/strandsql/strand/session"
)

// flinkDDLQueries are the Nexmark queries that run over Flink's DDL too:
// the others read bid.channel or bid.url, which Flink's ddl_gen.sql does
// not declare, or write files.
var flinkDDLQueries = []string{"q0", "q1", "q2", "q3", "q4", "q5", "q7w", "q8", "q9", "q11", "q14", "q15", "q17"}

// small bounds a Nexmark script: 10000 events at 1000 per second of event
// time, so that windows of seconds have rows; its sink prints.
func small(src string) string {
	return strings.NewReplacer(
		"'events.num' = '10000000'", "'events.num' = '10000'",
		"'first-event.rate' = '10000000'", "'first-event.rate' = '1000'",
		"'next-event.rate' = '10000000'", "'next-event.rate' = '1000'",
		"'connector' = 'blackhole'", "'connector' = 'print'",
	).Replace(src)
}

func runScript(t *testing.T, src string) string {
	t.Helper()
	var out, log bytes.Buffer
	sess := session.New(&out, &log)
	sess.Parallelism = 2
	// Its jobs' work directories go under the test's, not a .strand
	// directory left behind in tests/.
	sess.Durable.StateDir = t.TempDir()
	if err := sess.ExecScript(context.Background(), src); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	return out.String()
}

// TestNexmarkFlinkDDL runs Nexmark queries over strand's flat tables
// (ddl.sql) and over Flink's DDL pasted in (flink/ddl_gen.sql and
// ddl_views.sql): the results must be the same, since both shapes make
// the same events. The flat tables are the reference: their generator
// is checked on its own (exec/connector's nexmark tests).
func TestNexmarkFlinkDDL(t *testing.T) {
	ddl, err := nexmark.Files.ReadFile("ddl.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range flinkDDLQueries {
		t.Run(q, func(t *testing.T) {
			flat, err := nexmark.Script(q)
			if err != nil {
				t.Fatal(err)
			}
			flink, err := nexmark.FlinkScript(q)
			if err != nil {
				t.Fatal(err)
			}
			want := applyChangelog(runScript(t, small(flat)))
			got := applyChangelog(runScript(t, small(flink)))
			if strings.TrimSpace(want) == "" {
				t.Fatalf("%s makes no rows to compare", q)
			}
			if got != want {
				t.Errorf("%s over Flink's DDL differs from the flat tables:\n got %.2000s\nwant %.2000s", q, got, want)
			}
		})
	}

	// The views' rows are the flat tables' rows, column for column.
	views := map[string]string{
		"person":  "id, name, emailAddress, creditCard, city, state, dateTime, extra",
		"auction": "id, itemName, description, initialBid, reserve, dateTime, expires, seller, category, extra",
		"bid":     "auction, bidder, price, dateTime, extra",
	}
	gen, err := nexmark.Files.ReadFile("flink/ddl_gen.sql")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := nexmark.Files.ReadFile("flink/ddl_views.sql")
	if err != nil {
		t.Fatal(err)
	}
	flinkDDL := string(gen) + "\n" + string(vs) + "\n"
	for view, cols := range views {
		sel := "SELECT " + cols + " FROM " + view + ";"
		want := sortLines(runScript(t, small(string(ddl))+sel))
		got := sortLines(runScript(t, small(flinkDDL)+sel))
		if n := strings.Count(want, "\n"); n < 100 {
			t.Fatalf("%s: only %d rows", view, n)
		}
		if got != want {
			t.Errorf("view %s's rows differ from table %s's", view, view)
		}
	}

	// q0 over Flink's views reads only the fields it needs, and only bids.
	plan := runScript(t, small(flinkDDL)+"EXPLAIN SELECT auction, bidder, price, dateTime, extra FROM bid;")
	if want := "reads [event_type, person{dateTime}, auction{dateTime}, bid]"; !strings.Contains(plan, want) {
		t.Errorf("the plan does not say %q:\n%s", want, plan)
	}
}
