package state

import (
	"fmt"
	"strings"
	"testing"
)

// Rev4 review tests of the excise span of replacing commits (everything
// in replace.go): it must hold every key a store can hold, whatever its
// uid, key group, state name and user key.

// TestRev4ReplaceExtremeKeys runs the replace model over keys at the
// edges of the key space: uids whose uvarint length starts with 0x7f,
// 0x80 and 0xff (lengths 127, 128 and 255) and that are made of 0xff
// bytes, names of 0xff bytes, key group 0xffff and user keys of 0xff.
func TestRev4ReplaceExtremeKeys(t *testing.T) {
	uids, names, kgs, keys := reviewUIDs, reviewNames, reviewKGs, reviewKeys
	t.Cleanup(func() { reviewUIDs, reviewNames, reviewKGs, reviewKeys = uids, names, kgs, keys })
	reviewUIDs = []string{"agg", strings.Repeat("\xff", 127), strings.Repeat("\xff", 128), strings.Repeat("\xff", 255), ""}
	reviewNames = []string{"p", "\xff", strings.Repeat("\xff", 200)}
	reviewKGs = []uint16{0, 0xffff}
	reviewKeys = []string{"", "\x00", strings.Repeat("\xff", 20)}
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { replaceModelRun(t, seed) })
	}
}
