package ui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDashboardCost measures what an open dashboard costs the job: the
// same bounded job runs six times, alternately with and without the graph
// page open in Chromium (polling every second), and the process's CPU
// time (user + system, read from the ended process) is compared, median
// of three each. The browser's own CPU is not the job's and is not
// counted. Set STRAND_UI_BENCH=1 to run it (about three minutes).
func TestDashboardCost(t *testing.T) {
	if os.Getenv("STRAND_UI_BENCH") == "" {
		t.Skip("set STRAND_UI_BENCH=1 to measure the dashboard's cost")
	}
	const rows, perSecond = 1_500_000, 50_000
	bin := binary(t)
	var with, without []float64
	for i := range 6 {
		page := i%2 == 1
		var cpu float64
		// A subtest of its own, so that its browser is closed before the
		// next run.
		t.Run(fmt.Sprintf("run%d", i+1), func(t *testing.T) { cpu = costRun(t, bin, rows, perSecond, page) })
		if page {
			with = append(with, cpu)
		} else {
			without = append(without, cpu)
		}
		t.Logf("run %d, page open %v: %.3f CPU-s, %.0f rows per CPU-second", i+1, page, cpu, rows/cpu)
	}
	mw, mo := median(with), median(without)
	t.Logf("median CPU: without the page %.3f s, with it %.3f s: %+.2f %% (rows per CPU-second %.0f vs %.0f, ratio %.4f)",
		mo, mw, (mw/mo-1)*100, rows/mo, rows/mw, mo/mw)
	if mw > mo*1.01 {
		t.Errorf("the open dashboard costs %.2f %% of the job's CPU, more than 1 %%", (mw/mo-1)*100)
	}
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

// costRun runs the job to its end, with the graph page open if page, and
// returns the process's CPU seconds.
func costRun(t *testing.T, bin string, rows, perSecond int, page bool) float64 {
	dir := t.TempDir()
	sql := fmt.Sprintf(strings.Replace(query, "'rows-per-second' = '1000'",
		fmt.Sprintf("'rows-per-second' = '%d', 'number-of-rows' = '%d'", perSecond, rows), 1), time.Now().UTC().Format("2006-01-02 15:04:05.000"))
	f := filepath.Join(dir, "job.sql")
	if err := os.WriteFile(f, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", f, "--parallelism", "2", "--checkpoint-interval", "1s",
		"--state-dir", filepath.Join(dir, "state"), "--http", "127.0.0.1:0")
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
		buf := make([]byte, 4096)
		var line strings.Builder
		for {
			n, err := stderr.Read(buf)
			for _, c := range buf[:n] {
				if c != '\n' {
					line.WriteByte(c)
					continue
				}
				if a, ok := strings.CutPrefix(line.String(), "http serving on "); ok {
					addr <- "http://" + a
				}
				line.Reset()
			}
			if err != nil {
				return
			}
		}
	}()
	base := <-addr
	if page {
		ctx := browser(t)
		id := jobID(t, base)
		if err := chromedp.Do(ctx, chromedp.Navigate(base+"/#/jobs/"+id+"/graph")); err != nil {
			t.Fatal(err)
		}
	}
	<-scanned
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	st := cmd.ProcessState
	return (st.UserTime() + st.SystemTime()).Seconds()
}
