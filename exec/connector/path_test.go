package connector

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocalPath(t *testing.T) {
	ok := map[string]string{
		"data/x.csv":                 "data/x.csv",
		"/abs/x":                     "/abs/x",
		"file:///tmp/out/":           "/tmp/out",
		"file://localhost/tmp/a%20b": "/tmp/a b",
		"file:/tmp/x":                "/tmp/x",
	}
	for in, want := range ok {
		got, err := localPath(in)
		if err != nil || got != want {
			t.Errorf("localPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := map[string]string{
		"s3://bucket/k":    "unsupported file system scheme 's3'",
		"hdfs://nn:8020/x": "unsupported file system scheme 'hdfs'",
		"gs://b/x":         "file:// URI",
		"file://host/x":    "names host 'host'",
		"file:rel/x":       "is not absolute",
		"file:///x?y=1":    "query or fragment",
	}
	for in, want := range bad {
		_, err := localPath(in)
		var oe *OptionError
		if !errors.As(err, &oe) || !errors.Is(err, ErrOption) || oe.Key != "path" || !oe.AtValue || !strings.Contains(err.Error(), want) {
			t.Errorf("localPath(%q): %v; want an error on the path's value containing %q", in, err, want)
		}
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(file, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tab := func(path string) Table {
		return Table{Name: "t", Options: map[string]string{"connector": "filesystem", "path": path, "format": "csv"}}
	}
	if err := Check(tab(file), true); err != nil {
		t.Errorf("existing file: %v", err)
	}
	if err := Check(tab("file://"+dir), true); err != nil {
		t.Errorf("existing directory as a file URI: %v", err)
	}
	if err := Check(tab(filepath.Join(dir, "out")), false); err != nil {
		t.Errorf("sink directory to be made: %v", err)
	}
	for _, c := range []struct {
		path     string
		asSource bool
		want     string
	}{
		{filepath.Join(dir, "none.csv"), true, "does not exist"},
		{file, false, "is a file"},
	} {
		err := Check(tab(c.path), c.asSource)
		var oe *OptionError
		if !errors.As(err, &oe) || !oe.AtValue || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%s, %v) = %v; want %q", c.path, c.asSource, err, c.want)
		}
	}
}
