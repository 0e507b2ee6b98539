package main

import (
	"bytes"
	"testing"
)

func TestBenchUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "tpch"},
		{"bench", "nexmark", "--query", "q99"},
		{"bench", "nexmark", "--format", "xml"},
		{"bench", "nexmark", "--events", "-1"},
		{"bench", "nexmark", "--checkpoint-interval", "10"},
		{"bench", "nexmark", "--memory", "1kb"},
		{"bench", "nexmark", "--memory", "lots"},
		{"bench", "checkpoints", "--memory", "0"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, nil, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}
