package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestCLIFileBeingWritten: strand reads a CSV file whose writer has not
// finished its last line; the line is read whole once the writer finishes
// it, not as a bad row or a cut value.
func TestCLIFileBeingWritten(t *testing.T) {
	bin := strandBinary(t) // built before the file is written
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), "CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'data/in.csv', 'format' = 'csv', 'csv.ignore-parse-errors' = 'true');\nSELECT id, s FROM t;\n")
	path := filepath.Join(dir, "data/in.csv")
	writeFile(t, path, "1,a\n2,unfin")
	cmd := exec.Command(bin, "run", "q.sql", "--parallelism", "1")
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("ished\n3,c\n")
	f.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if want := "op[id, s]\n+I[1, a]\n+I[2, unfinished]\n+I[3, c]\n"; out.String() != want {
		t.Errorf("stdout %q, want %q\n%s", out.String(), want, errb.String())
	}
	if !bytes.Contains(errb.Bytes(), []byte("bad rows skipped 0")) {
		t.Errorf("rows skipped:\n%s", errb.String())
	}
}
