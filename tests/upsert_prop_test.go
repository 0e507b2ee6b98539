package tests

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The references below share no code with rank/: a map of slices for the
// materializer, a map for the normalize.

type kv struct{ k, v int }

// genChangelog makes a valid random changelog of rows (k, v): each
// retraction takes back a live row, whole. It returns it as debezium-json
// messages, and what SinkUpsertMaterializer keyed by v emits for it, per
// v in order: it keeps each v's live rows in a list, appends a row on +I
// and +U and emits it (+I if the list was empty, else +U), and on -U and
// -D removes the first equal row and emits -D of it if the list is left
// empty, or +U of the new last row if it was the last one.
func genChangelog(rng *rand.Rand, n int) (string, map[string][]string) {
	var live []kv
	byV := map[int][]kv{}
	emits := map[string][]string{}
	var msgs strings.Builder
	row := func(r kv) string { return fmt.Sprintf(`{"k":%d,"v":%d}`, r.k, r.v) }
	emit := func(kind string, r kv) {
		key := fmt.Sprint(r.v)
		emits[key] = append(emits[key], fmt.Sprintf("%s[%d, %d]", kind, r.v, r.k))
	}
	add := func(r kv) {
		kind := "+U"
		if len(byV[r.v]) == 0 {
			kind = "+I"
		}
		byV[r.v] = append(byV[r.v], r)
		emit(kind, r)
	}
	remove := func(r kv) {
		l := byV[r.v]
		i := slices.Index(l, r)
		l = slices.Delete(l, i, i+1)
		byV[r.v] = l
		switch {
		case len(l) == 0:
			emit("-D", r)
		case i == len(l):
			emit("+U", l[len(l)-1])
		}
	}
	for range n {
		switch op := rng.Intn(5); { // insertions and updates outnumber deletions: keys get several rows
		case op < 2 || len(live) == 0:
			r := kv{rng.Intn(8), rng.Intn(5)}
			live = append(live, r)
			add(r)
			fmt.Fprintf(&msgs, `{"before":null,"after":%s,"op":"c"}`+"\n", row(r))
		case op < 4:
			i := rng.Intn(len(live))
			old, r := live[i], kv{live[i].k, rng.Intn(5)}
			live[i] = r
			remove(old)
			add(r)
			fmt.Fprintf(&msgs, `{"before":%s,"after":%s,"op":"u"}`+"\n", row(old), row(r))
		default:
			i := rng.Intn(len(live))
			old := live[i]
			live = slices.Delete(live, i, i+1)
			remove(old)
			fmt.Fprintf(&msgs, `{"before":%s,"after":null,"op":"d"}`+"\n", row(old))
		}
	}
	return msgs.String(), emits
}

// byKey groups printed changelog lines by their first field, in order.
func byKey(out string) map[string][]string {
	m := map[string][]string{}
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if len(l) > 3 {
			key, _, _ := strings.Cut(l[3:], ",")
			m[key] = append(m[key], l)
		}
	}
	return m
}

func runSession(t *testing.T, src string, parallelism, batch int) string {
	t.Helper()
	var out bytes.Buffer
	sess := session.New(&out, &bytes.Buffer{})
	sess.Parallelism = parallelism
	sess.Config[session.KeyBatchSize] = fmt.Sprint(batch)
	// Its jobs' work directories go under the test's, not a .strand
	// directory left behind in tests/ (as runScript's).
	sess.Durable.StateDir = t.TempDir()
	if err := sess.ExecScript(context.Background(), src); err != nil {
		t.Fatal(planner.FormatError("query", src, err))
	}
	return out.String()
}

// TestMaterializerIsExact: a random changelog, read from one debezium-json
// file (so each key's changes arrive in file order at any parallelism),
// written to a sink keyed by a column that is no upsert key of it: what
// the SinkUpsertMaterializer emits for each key, in order, is the
// reference's, at parallelism 1 and 4 and batch sizes 1 and 4096.
func TestMaterializerIsExact(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		msgs, want := genChangelog(rand.New(rand.NewSource(seed)), 150)
		t.Chdir(t.TempDir())
		if err := os.WriteFile("cdc.json", []byte(msgs), 0o644); err != nil {
			t.Fatal(err)
		}
		src := `CREATE TABLE cdc (k BIGINT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = 'cdc.json', 'format' = 'debezium-json');
CREATE TABLE by_v (v BIGINT, k BIGINT, PRIMARY KEY (v) NOT ENFORCED) WITH ('connector' = 'print');
INSERT INTO by_v SELECT v, k FROM cdc;`
		for _, v := range []struct{ p, batch int }{{1, 4096}, {4, 1}, {1, 1}, {4, 4096}} {
			got := byKey(runSession(t, src, v.p, v.batch))
			for key, w := range want {
				if g := got[key]; !slices.Equal(g, w) {
					t.Fatalf("seed %d at parallelism %d, batch %d, v = %s:\n got %q\nwant %q", seed, v.p, v.batch, key, g, w)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("seed %d: keys %d, want %d", seed, len(got), len(want))
			}
		}
	}
}

// TestNormalizeIsExact: random upserts and tombstones in an upsert-kafka
// topic, read through ChangelogNormalize: the changelog, applied, is each
// key's last value (none after a tombstone), no update is a no-op and no
// retraction unmatched, at parallelism 1 and 4 and batch sizes 1 and
// 4096.
func TestNormalizeIsExact(t *testing.T) {
	addr := kafkaBroker(t, 3, "up")
	rng := rand.New(rand.NewSource(5))
	last := map[int]int{}
	var recs []*kgo.Record
	for range 300 {
		k := rng.Intn(20)
		r := &kgo.Record{Topic: "up", Key: fmt.Appendf(nil, "%d", k)}
		if rng.Intn(5) == 0 {
			delete(last, k)
		} else {
			v := rng.Intn(4) // repeats: no-op updates
			last[k] = v
			r.Value = fmt.Appendf(nil, "%d,%d", k, v)
		}
		recs = append(recs, r)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	var want []string
	for k, v := range last {
		want = append(want, fmt.Sprintf("+I[%d, %d]", k, v))
	}
	slices.Sort(want)
	src := fmt.Sprintf(`CREATE TABLE up (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'up', 'properties.bootstrap.servers' = '%s',
  'key.format' = 'raw', 'value.format' = 'csv', 'value.fields-include' = 'ALL', 'scan.bounded.mode' = 'latest-offset');
SELECT k, v FROM up;`, addr)
	for _, v := range []struct{ p, batch int }{{1, 4096}, {4, 1}, {1, 1}, {4, 4096}} {
		out := runSession(t, src, v.p, v.batch)
		// Per key, in output order, no -U is followed by +U of the same row.
		prev := map[string]string{}
		for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			key, _, _ := strings.Cut(l[3:], ",")
			if p := prev[key]; strings.HasPrefix(p, "-U") && l == "+U"+p[2:] {
				t.Fatalf("parallelism %d, batch %d: no-op update %s then %s", v.p, v.batch, p, l)
			}
			prev[key] = l
		}
		got := strings.TrimRight(applyChangelog(out), "\n")
		if got != strings.Join(want, "\n") {
			t.Fatalf("parallelism %d, batch %d:\n got %s\nwant %s\noutput:\n%s", v.p, v.batch, got, strings.Join(want, "\n"), out)
		}
	}
}
