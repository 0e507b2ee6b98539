package session

import (
	"time"

	"github.com/strandsql/strand/types"
)

// KeyIdleTimeout is Flink's table.exec.source.idle-timeout: a source split
// (a Kafka partition) without rows for that long stops holding the
// watermark back until it has rows again. Off (0) by default: with it,
// which rows are late can depend on timing.
const KeyIdleTimeout = "table.exec.source.idle-timeout"

// idleTimeout reads KeyIdleTimeout, checked when it was set.
func (s *Session) idleTimeout() time.Duration {
	d, err := types.ParseDuration(s.config(KeyIdleTimeout, "0 ms"))
	if err != nil || d < 0 {
		return 0
	}
	return d
}
