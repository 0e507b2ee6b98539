package connector

import (
	"fmt"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// Flink's watermark alignment options (FLIP-296), which every source
// connector takes: they put the table's source in a group whose subtasks
// keep their watermarks within max-drift of each other's
// (exec.Alignment). Scan options, accepted and checked on a table that is
// written too, as the other scan.* options are, and ignored there.
const (
	KeyAlignGroup    = "scan.watermark.alignment.group"
	KeyAlignDrift    = "scan.watermark.alignment.max-drift"
	KeyAlignInterval = "scan.watermark.alignment.update-interval"
)

var alignKeys = []string{KeyAlignGroup, KeyAlignDrift, KeyAlignInterval}

// Alignment reads t's watermark alignment options; the zero Alignment
// when it has none. A group needs a max-drift and a max-drift a group,
// as in Flink; update-interval, a positive duration (Flink's default is
// 1 s), needs nothing of strand, which is never staler than it allows
// (exec.Alignment). That the table has a WATERMARK is the planner's to
// check: a Table does not say.
func Alignment(t Table) (exec.Alignment, error) {
	o := &opts{m: t.Options}
	var a exec.Alignment
	group, hasGroup := o.get(KeyAlignGroup)
	drift, hasDrift := o.get(KeyAlignDrift)
	switch {
	case hasGroup && group == "":
		return a, badAt(KeyAlignGroup, group, "must not be empty")
	case hasGroup && !hasDrift:
		return a, &OptionError{Key: KeyAlignGroup, Msg: fmt.Sprintf("option '%s' needs option '%s', how far a source's watermark may get ahead of the group's", KeyAlignGroup, KeyAlignDrift)}
	case hasDrift && !hasGroup:
		return a, &OptionError{Key: KeyAlignDrift, Msg: fmt.Sprintf("option '%s' needs option '%s', the group the source keeps pace with", KeyAlignDrift, KeyAlignGroup)}
	}
	if v, ok := o.get(KeyAlignInterval); ok {
		if d, err := types.ParseDuration(v); err != nil || d <= 0 {
			return a, badAt(KeyAlignInterval, v, "must be a positive duration such as '1 s'")
		}
	}
	if !hasGroup {
		return a, nil
	}
	d, err := types.ParseDuration(drift)
	if err != nil || d < time.Millisecond {
		return a, badAt(KeyAlignDrift, drift, "must be a positive duration of at least 1 ms, such as '1 min'")
	}
	return exec.Alignment{Group: group, MaxDrift: d.Milliseconds()}, nil
}

// badAt is badValue with the error's caret on the value.
func badAt(key, val, why string) *OptionError {
	e := badValue(key, val, why)
	e.AtValue = true
	return e
}
