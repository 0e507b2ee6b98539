package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// query is a window aggregate and a Top-N over a generator running at
// wall-clock speed from now, so that the watermark trails the clock by
// about a second: three vertices, hash and global edges.
const query = `CREATE TABLE clicks (ts TIMESTAMP(3), user_id BIGINT, amount DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '1000', 'fields.ts.start' = '%s', 'fields.ts.step' = '1 ms',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '50', 'fields.amount.min' = '0', 'fields.amount.max' = '100');
CREATE TABLE top_spenders (ws TIMESTAMP(3), user_id BIGINT, spent DOUBLE, rn BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO top_spenders
SELECT window_start, user_id, spent, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY spent DESC) AS rn
  FROM (SELECT window_start, window_end, user_id, SUM(amount) AS spent
        FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
        GROUP BY window_start, window_end, user_id))
WHERE rn <= 3;
`

// vertexLine is a vertex of EXPLAIN's physical plan: "1: Source: clicks [parallelism 2]".
var vertexLine = regexp.MustCompile(`(?m)^(\d+): (.+) \[parallelism (\d+)\]$`)

type vertex struct {
	ID          int
	Name        string
	Parallelism int
}

func binary(t *testing.T) string {
	if b := os.Getenv("STRAND_BIN"); b != "" {
		abs, err := filepath.Abs(b)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	bin := filepath.Join(t.TempDir(), "strand")
	build := exec.Command("go", "build", "-o", bin, "./cmd/strand")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building strand: %v\n%s", err, out)
	}
	return bin
}

// explain runs EXPLAIN of the query with the binary and returns its
// physical plan's vertices.
func explain(t *testing.T, bin, dir, sql string) []vertex {
	f := filepath.Join(dir, "explain.sql")
	if err := os.WriteFile(f, []byte(strings.Replace(sql, "INSERT INTO", "EXPLAIN INSERT INTO", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "run", f, "--parallelism", "2", "--state-dir", filepath.Join(dir, "explain-state")).CombinedOutput()
	if err != nil {
		t.Fatalf("EXPLAIN: %v\n%s", err, out)
	}
	var vs []vertex
	for _, m := range vertexLine.FindAllStringSubmatch(string(out), -1) {
		id, _ := strconv.Atoi(m[1])
		p, _ := strconv.Atoi(m[3])
		vs = append(vs, vertex{id, m[2], p})
	}
	if len(vs) < 2 {
		t.Fatalf("EXPLAIN has %d vertices:\n%s", len(vs), out)
	}
	return vs
}

// start runs the job with --http on a free loopback port and returns the
// dashboard's address once the job is listed.
func start(t *testing.T, bin, dir, sql string) string {
	f := filepath.Join(dir, "job.sql")
	if err := os.WriteFile(f, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", f, "--parallelism", "2", "--checkpoint-interval", "1s",
		"--state-dir", filepath.Join(dir, "state"), "--http", "127.0.0.1:0")
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "http serving on "); ok {
				addr <- a
			}
			t.Log(sc.Text())
		}
	}()
	// The process is interrupted, as by ^C, and its stderr read to the
	// end before the test ends.
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-scanned:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-scanned
		}
		_ = cmd.Wait()
	})
	select {
	case a := <-addr:
		return "http://" + a
	case <-time.After(30 * time.Second):
		t.Fatal("strand run did not serve HTTP")
		return ""
	}
}

func jobID(t *testing.T, base string) string {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/jobs")
		if err == nil {
			var out struct{ Jobs []struct{ ID string } }
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if json.Unmarshal(b, &out) == nil && len(out.Jobs) == 1 {
				return out.Jobs[0].ID
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the job is not listed")
	return ""
}

func artifacts(t *testing.T) string {
	dir := os.Getenv("STRAND_UI_ARTIFACTS")
	if dir == "" {
		dir = "artifacts"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browser starts headless Chromium with the flags that work on a machine
// without a network and an empty profile.
func browser(t *testing.T) context.Context {
	path := os.Getenv("CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no Chromium at %s (make test-ui installs Debian's chromium): %v", path, err)
	}
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1000),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true)}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelT(); cancel(); cancelA() })
	return ctx
}

func shoot(t *testing.T, ctx context.Context, dir, name string) {
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// poll waits until the JavaScript expression is truthy in the page and
// returns its value.
func poll[T any](t *testing.T, ctx context.Context, what, expr string, timeout time.Duration) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Poll[T](expr, chromedp.WithPollingInterval(200*time.Millisecond), chromedp.WithPollingTimeout(timeout)))
	if err != nil {
		html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("main").innerText`))
		t.Fatalf("%s: %v\npage:\n%s", what, err, html)
	}
	return v
}

// TestDashboard opens each page of the dashboard on a running job: the
// jobs page lists it, the graph shows every vertex of its EXPLAIN with its
// parallelism and rows/s above zero, a checkpoint appears in the history,
// the savepoint button writes a savepoint whose path the page shows, the
// query page shows the statement and EXPLAIN's physical plan, and the stop
// button stops the job with a savepoint.
func TestDashboard(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	out := artifacts(t)
	sql := fmt.Sprintf(query, time.Now().UTC().Format("2006-01-02 15:04:05.000"))
	want := explain(t, bin, dir, sql)
	base := start(t, bin, dir, sql)
	id := jobID(t, base)
	ctx := browser(t)

	// Jobs.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/")); err != nil {
		t.Fatal(err)
	}
	row := poll[string](t, ctx, "the jobs page lists the job",
		fmt.Sprintf(`document.querySelector('#jobs tr[data-job="%s"]')?.innerText`, id), 20*time.Second)
	if !strings.Contains(row, "RUNNING") || !strings.Contains(row, "job_1") {
		t.Errorf("jobs row %q", row)
	}
	shoot(t, ctx, out, "jobs.png")

	// Graph: every vertex of EXPLAIN, with its parallelism, in the picture
	// and in the table.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/#/jobs/"+id+"/graph")); err != nil {
		t.Fatal(err)
	}
	got := poll[[]vertex](t, ctx, "the graph is drawn", `(() => {
		const v = [...document.querySelectorAll('#graph rect[data-vertex]')].map((r) => ({
			ID: +r.dataset.vertex, Parallelism: +r.dataset.parallelism,
			Name: r.closest('a').getAttribute('aria-label').replace(/^vertex \d+, (.*), parallelism \d+$/, '$1')}));
		return v.length ? v : null;
	})()`, 20*time.Second)
	if !slices.Equal(got, want) {
		t.Errorf("graph vertices %+v, EXPLAIN %+v", got, want)
	}
	rows := poll[[]vertex](t, ctx, "the vertex table", `(() => {
		const r = [...document.querySelectorAll('#vertices tr[data-vertex]')].map((tr) => ({
			ID: +tr.dataset.vertex, Parallelism: +tr.querySelector('.parallelism').innerText,
			Name: tr.querySelector('a').innerText.replace(/^\d+: /, '')}));
		return r.length ? r : null;
	})()`, 10*time.Second)
	if !slices.Equal(rows, want) {
		t.Errorf("vertex table %+v, EXPLAIN %+v", rows, want)
	}
	// Rows per second rise above zero on every vertex.
	poll[bool](t, ctx, "rows/s above zero on every vertex", `(() => {
		const rates = [...document.querySelectorAll('#vertices .rate-in')].map((td) => parseFloat(td.innerText.replace(/,/g, '')));
		return rates.length > 0 && rates.every((r) => r > 0);
	})()`, 30*time.Second)
	shoot(t, ctx, out, "graph.png")

	// Operator detail of the window aggregate, once its charts have a
	// few samples.
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/#/jobs/%s/vertices/%d", base, id, want[1].ID))); err != nil {
		t.Fatal(err)
	}
	poll[bool](t, ctx, "the subtask table and charts", `document.querySelectorAll('#subtasks tbody tr').length === 2 &&
		document.querySelectorAll('.chart polyline').length >= 3 && [...document.querySelectorAll('.chart polyline')].every((p) => p.points.length >= 4)`, 30*time.Second)
	shoot(t, ctx, out, "vertex.png")

	// Checkpoints.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/#/jobs/"+id+"/checkpoints")); err != nil {
		t.Fatal(err)
	}
	poll[bool](t, ctx, "a completed checkpoint in the history", `document.querySelectorAll('#checkpoints tr[data-checkpoint] .status.COMPLETED').length >= 3`, 30*time.Second)
	shoot(t, ctx, out, "checkpoints.png")

	// Savepoints: the button triggers one; its path shows on the page and
	// holds a savepoint.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/#/jobs/"+id+"/savepoints"), chromedp.Click(chromedp.CSS("#trigger-savepoint"))); err != nil {
		t.Fatal(err)
	}
	path := poll[string](t, ctx, "the savepoint's path", `document.querySelector('#requests .savepoint-path')?.innerText`, 60*time.Second)
	if _, err := os.Stat(filepath.Join(path, "_metadata")); err != nil {
		t.Errorf("the page shows savepoint %s: %v", path, err)
	}
	listed := poll[string](t, ctx, "the savepoint in the history", `document.querySelector('#savepoints tr[data-checkpoint] .path')?.innerText`, 10*time.Second)
	if listed != path {
		t.Errorf("savepoint history shows %q, the request %q", listed, path)
	}
	shoot(t, ctx, out, "savepoints.png")

	// Query: the statement, masked, and EXPLAIN's physical plan.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/#/jobs/"+id+"/query")); err != nil {
		t.Fatal(err)
	}
	stmt := poll[string](t, ctx, "the statement", `document.getElementById('statement')?.innerText`, 10*time.Second)
	plan := poll[string](t, ctx, "the plan", `document.getElementById('explain')?.innerText`, 10*time.Second)
	if !strings.HasPrefix(stmt, "INSERT INTO top_spenders") {
		t.Errorf("statement %s", stmt)
	}
	for _, v := range want {
		if !strings.Contains(plan, fmt.Sprintf("%d: %s [parallelism %d]", v.ID, v.Name, v.Parallelism)) {
			t.Errorf("plan lacks vertex %+v:\n%s", v, plan)
		}
	}
	shoot(t, ctx, out, "query.png")

	// Everything the pages loaded came from strand itself: they work
	// without a network.
	loaded := poll[[]string](t, ctx, "the resources loaded", `performance.getEntriesByType('resource').map((e) => e.name)`, 5*time.Second)
	for _, u := range loaded {
		if !strings.HasPrefix(u, base+"/") {
			t.Errorf("the page loaded %s from elsewhere", u)
		}
	}

	// A narrow window: the graph page still lays out (no horizontal
	// scroll of the whole page).
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(380, 800), chromedp.Navigate(base+"/#/jobs/"+id+"/graph")); err != nil {
		t.Fatal(err)
	}
	poll[bool](t, ctx, "the narrow graph page", `document.querySelector('#graph') !== null && document.documentElement.scrollWidth <= window.innerWidth + 1`, 10*time.Second)
	shoot(t, ctx, out, "graph-narrow.png")

	// Stop with a savepoint, the confirmation accepted: the page shows the
	// savepoint's path, which holds a savepoint, and once the process has
	// ended it says so above its last figures.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 1000), chromedp.Navigate(base+"/#/jobs/"+id+"/savepoints")); err != nil {
		t.Fatal(err)
	}
	poll[bool](t, ctx, "the stop button", `document.getElementById('stop-savepoint') !== null`, 10*time.Second)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(window.confirm = () => true, true)`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#stop-savepoint"))); err != nil {
		t.Fatal(err)
	}
	stopped := poll[string](t, ctx, "the stop's savepoint path", `[...document.querySelectorAll('#requests tr')]
		.filter((tr) => tr.innerText.startsWith('stop with savepoint')).map((tr) => tr.querySelector('.savepoint-path').innerText).find((p) => p)`, 60*time.Second)
	if _, err := os.Stat(filepath.Join(stopped, "_metadata")); err != nil || stopped == path {
		t.Errorf("the stop's savepoint %s (the first was %s): %v", stopped, path, err)
	}
	poll[bool](t, ctx, "the page says the process has ended", `document.getElementById('alert').innerText.includes('may have ended') &&
		document.querySelector('#requests .savepoint-path') !== null`, 30*time.Second)
	shoot(t, ctx, out, "stopped.png")
}
