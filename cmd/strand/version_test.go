package main

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

// TestPrintVersion: the revision and whether the tree was modified come
// from the build info the go command stamps.
func TestPrintVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/strandsql/strand", Version: "v0.0.0-20261201195904-db4a7726aa28"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "db4a7726aa28a3578398ab3c361bad25cdd4325d"}, {Key: "vcs.modified", Value: "true"}, {Key: "vcs.time", Value: "2026-12-01T19:59:04Z"}}}
	var b bytes.Buffer
	printVersion(&b, "v1.0.0", bi)
	want := "strand v1.0.0\nrevision db4a7726aa28a3578398ab3c361bad25cdd4325d (modified), committed 2026-12-01T19:59:04Z\nmodule github.com/strandsql/strand, go1.26.0 "
	if !strings.HasPrefix(b.String(), want) {
		t.Errorf("got\n%s\nwant prefix\n%s", b.String(), want)
	}
}
