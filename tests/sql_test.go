package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
)

// fixedNow is the clock of every test session, so CURRENT_TIMESTAMP is
// reproducible.
const fixedNow = int64(1704067200000) // 2024-01-01 00:00:00 UTC

// variant is one way every SQL test file is run.
type variant struct {
	name        string
	parallelism int
	batchSize   int
}

var variants = []variant{
	{"p1", 1, 4096},
	{"p4-batch3", 4, 3},
}

func TestSQL(t *testing.T) {
	files, err := filepath.Glob("testdata/*.test")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no SQL test files in testdata/")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".test"), func(t *testing.T) {
			for _, v := range variants {
				t.Run(v.name, func(t *testing.T) {
					path, err := filepath.Abs(f)
					if err != nil {
						t.Fatal(err)
					}
					t.Chdir(t.TempDir())
					r := newRunner(v)
					datadriven.RunTest(t, path, r.run)
				})
			}
		})
	}
}

type runner struct {
	sess     *session.Session
	out, log bytes.Buffer
}

func newRunner(v variant) *runner {
	r := &runner{}
	r.sess = session.New(&r.out, &r.log)
	r.sess.Parallelism = v.parallelism
	r.sess.Config[session.KeyBatchSize] = fmt.Sprint(v.batchSize)
	r.sess.Now = func() int64 { return fixedNow }
	return r
}

func (r *runner) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "input":
		var path string
		d.ScanArgs(t, "path", &path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		body := d.Input
		if body != "" {
			body += "\n"
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return ""
	case "exec", "query":
		out, err := r.exec(d.Input)
		if err != nil {
			out += "error: " + err.Error() + "\n"
		}
		switch {
		case d.Cmd == "query" && d.HasArg("final"):
			out = applyChangelog(out)
		case d.Cmd == "query" && d.HasArg("upsert"):
			var key int
			d.ScanArgs(t, "upsert", &key)
			out = applyUpserts(out, key)
		case d.Cmd == "query" && !d.HasArg("ordered"):
			out = sortLines(out)
		}
		if out == "" {
			return "ok"
		}
		return out
	case "error":
		_, err := r.exec(d.Input)
		if err == nil {
			d.Fatalf(t, "expected an error")
		}
		// The working directory is a fresh temporary one: errors show it
		// as $WD.
		msg := planner.FormatError("", d.Input, err)
		if wd, werr := os.Getwd(); werr == nil {
			msg = strings.ReplaceAll(msg, wd, "$WD")
		}
		return msg + "\n"
	case "output":
		var path string
		d.ScanArgs(t, "path", &path)
		if d.HasArg("success") {
			return successDirs(t, path)
		}
		return readOutput(t, path, d.HasArg("dirs"))
	case "metrics":
		m := r.sess.LastMetrics
		if m == nil {
			d.Fatalf(t, "no job has run")
		}
		return fmt.Sprintf("read %d, written %d, late %d, bad %d\n", m.RowsRead.Load(), m.RowsWritten.Load(), m.LateRows.Load(), m.BadRows.Load())
	}
	d.Fatalf(t, "unknown command %s", d.Cmd)
	return ""
}

func (r *runner) exec(src string) (string, error) {
	r.out.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := r.sess.ExecScript(ctx, src)
	return r.out.String(), err
}

// readOutput returns the sorted lines of a sink directory's visible
// files, in its subdirectories too; with dirs, each line is prefixed by
// the directory its file is in, relative to dir ("dt=2024-01-01/ 1,a").
func readOutput(t *testing.T, dir string, dirs bool) string {
	var lines []string
	err := filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if de.IsDir() {
			return nil
		}
		if strings.HasPrefix(de.Name(), ".") {
			return fmt.Errorf("hidden file %s left in the sink directory", p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		prefix := ""
		if rel, err := filepath.Rel(dir, filepath.Dir(p)); dirs && err == nil && rel != "." {
			prefix = filepath.ToSlash(rel) + "/ "
		}
		for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if l != "" {
				lines = append(lines, prefix+l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return "(empty)\n"
	}
	return strings.Join(lines, "\n") + "\n"
}

// successDirs lists the directories below dir that hold a _SUCCESS
// file: the partitions a filesystem sink committed.
func successDirs(t *testing.T, dir string) string {
	var out []string
	err := filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err == nil && de.Name() == "_SUCCESS" {
			rel, _ := filepath.Rel(dir, filepath.Dir(p))
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return strings.Join(append(out, fmt.Sprintf("(%d committed)", len(out))), "\n") + "\n"
}

func sortLines(s string) string {
	if s == "" {
		return s
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}
