package connector

import (
	"slices"
	"testing"
)

// TestOptionKeys checks that the keys completion offers are keys the
// connector accepts.
func TestOptionKeys(t *testing.T) {
	for _, c := range Connectors() {
		keys := OptionKeys(c)
		if !slices.Contains(keys, "connector") {
			t.Errorf("%s: keys %v lack 'connector'", c, keys)
		}
	}
	if !slices.Contains(OptionKeys("datagen"), "rows-per-second") || !slices.Contains(OptionKeys("filesystem"), "csv.field-delimiter") {
		t.Errorf("datagen %v, filesystem %v", OptionKeys("datagen"), OptionKeys("filesystem"))
	}
	if OptionKeys("kinesis") != nil {
		t.Errorf("an unknown connector has keys %v", OptionKeys("kinesis"))
	}
}
