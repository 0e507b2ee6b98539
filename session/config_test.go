package session

import (
	"fmt"
	"testing"
)

// The key lists are consistent: a key is strand's or Flink's, not both,
// and every Flink key named as the equivalent of a strand key is known.
func TestConfigKeyLists(t *testing.T) {
	for k := range strandKeys {
		if flinkKeys[k] {
			t.Errorf("%s is both strand's and in the Flink list", k)
		}
	}
	for k, e := range equivalents {
		if !flinkKeys[k] {
			t.Errorf("equivalent %s is not in the Flink list", k)
		}
		if _, ok := strandKeys[e]; !ok {
			t.Errorf("%s's equivalent %s is not strand's", k, e)
		}
	}
}

func TestCloseKeys(t *testing.T) {
	for k, want := range map[string]string{
		"paralelism.default":           "[parallelism.default]",
		"PARALLELISM.DEFAULT":          "[parallelism.default]",
		"state.checkpoint.dir":         "[state.checkpoints.dir]",
		"table.exec.minibatch.enabled": "[table.exec.mini-batch.enabled]",
		"zzz":                          "[]",
	} {
		if got := closeKeys(k); fmt.Sprint(got) != want {
			t.Errorf("closeKeys(%s) = %v, want %s", k, got, want)
		}
	}
}
