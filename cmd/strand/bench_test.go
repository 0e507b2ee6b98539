package main

import (
	"bytes"
	"testing"
)

func TestBenchUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"tpch"},
		{"nexmark", "--query", "q99"},
		{"nexmark", "--format", "xml"},
		{"nexmark", "--events", "-1"},
	} {
		var out, errb bytes.Buffer
		if code := benchCmd(args, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}
