package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chzyer/readline"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/session"
	"github.com/strandsql/strand/types"
)

// statusLine shows the running job's progress on the terminal's last
// line, redrawn in place: rows read, bytes read of the files' total with a
// percentage, rows per second, the watermark and checkpoints. Anything else
// written to the terminal (rows, log lines) first clears it, through the
// writers wrap returns, so that the two never mix; the next tick draws it
// again below.
type statusLine struct {
	mu    sync.Mutex
	term  *os.File
	shown bool

	jobs *session.Jobs
	stop chan struct{}
	done chan struct{}
}

// statusEvery is how often the status line is redrawn.
const statusEvery = 250 * time.Millisecond

// newStatusLine returns a status line on w, or nil if w is not a
// terminal.
func newStatusLine(w io.Writer) *statusLine {
	term, ok := w.(*os.File)
	if !ok || !readline.IsTerminal(int(term.Fd())) {
		return nil
	}
	return &statusLine{term: term, stop: make(chan struct{}), done: make(chan struct{})}
}

// start draws the status of jobs until close.
func (s *statusLine) start(jobs *session.Jobs) {
	s.jobs = jobs
	go s.run()
}

// wrap returns w, writing to the same terminal, so that each write first
// clears the status line.
func (s *statusLine) wrap(w io.Writer) io.Writer { return clearing{s: s, w: w} }

type clearing struct {
	s *statusLine
	w io.Writer
}

func (c clearing) Write(p []byte) (int, error) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.s.clear()
	return c.w.Write(p)
}

// close stops the redrawing and clears the line.
func (s *statusLine) close() {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	s.clear()
	s.mu.Unlock()
}

// clear erases the line, with s.mu held.
func (s *statusLine) clear() {
	if s.shown {
		io.WriteString(s.term, "\r\x1b[K")
		s.shown = false
	}
}

func (s *statusLine) run() {
	defer close(s.done)
	t := time.NewTicker(statusEvery)
	defer t.Stop()
	var r rate
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		j := running(s.jobs)
		s.mu.Lock()
		if j == nil {
			s.clear()
		} else {
			line := status(j, r.add(j.ID, j.Metrics.RowsRead.Load(), time.Now()))
			if w, _, err := readline.GetSize(int(s.term.Fd())); err == nil && w > 1 && len(line) >= w {
				line = line[:w-1] // a wrapped line could not be redrawn in place
			}
			io.WriteString(s.term, "\r\x1b[K"+line)
			s.shown = true
		}
		s.mu.Unlock()
	}
}

// running is the latest job still running, or nil.
func running(jobs *session.Jobs) *session.Job {
	list := jobs.List()
	for i := len(list) - 1; i >= 0; i-- {
		if st, _, _ := list[i].Status(); st == exec.Running {
			return list[i]
		}
	}
	return nil
}

// status renders job j's line.
func status(j *session.Job, perSec float64) string {
	m := j.Metrics
	var b strings.Builder
	fmt.Fprintf(&b, "rows read %d", m.RowsRead.Load())
	if total := m.BytesTotal.Load(); total > 0 {
		read := m.BytesRead.Load()
		// A file still being written grows past its size at the start.
		fmt.Fprintf(&b, ", bytes read %s of %s (%d%%)", bytesText(read), bytesText(max(total, read)), 100*read/max(total, read))
	}
	fmt.Fprintf(&b, ", %s rows/s", strconv.FormatFloat(perSec, 'f', 0, 64))
	if vs := j.Vertices(); len(vs) > 0 {
		// The last vertex's watermark is the job's event time: how far its
		// results are complete.
		switch wm := vs[len(vs)-1].Watermark(); wm {
		case types.MinWatermark:
		case types.MaxWatermark:
			b.WriteString(", watermark at the end of input")
		default:
			b.WriteString(", watermark " + types.FormatTimestamp(wm))
		}
	}
	if cp := j.Checkpoints(); cp.Completed+cp.Failed > 0 {
		fmt.Fprintf(&b, ", checkpoints %d", cp.Completed)
		if cp.Failed > 0 {
			fmt.Fprintf(&b, " (failed %d)", cp.Failed)
		}
	}
	return b.String()
}

// bytesText renders n bytes in binary units, as ls -h does.
func bytesText(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	f, u := float64(n)/1024, 0
	for f >= 1024 && u < len(units)-1 {
		f, u = f/1024, u+1
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + units[u:u+1] + "iB"
}

// rate is the rows read per second over about the last second.
type rate struct {
	job     string
	samples []sample
}

type sample struct {
	at   time.Time
	rows int64
}

// add records job's rows at now and returns the rate since the oldest
// sample of the last second.
func (r *rate) add(job string, rows int64, now time.Time) float64 {
	if job != r.job {
		r.job, r.samples = job, r.samples[:0]
	}
	r.samples = append(r.samples, sample{now, rows})
	for len(r.samples) > 2 && now.Sub(r.samples[1].at) >= time.Second {
		r.samples = r.samples[1:]
	}
	first := r.samples[0]
	if d := now.Sub(first.at).Seconds(); d > 0 {
		return float64(rows-first.rows) / d
	}
	return 0
}
