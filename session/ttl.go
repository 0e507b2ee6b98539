package session

import (
	"fmt"

	"github.com/strandsql/strand/types"
)

// KeyStateTTL is Flink's table.exec.state.ttl: how long the state of a
// key of a regular join, group aggregate, deduplication, Top-N or upsert
// materializer lives after its last write; 0, the default, forever.
const KeyStateTTL = "table.exec.state.ttl"

// stateTTLValue checks a value of table.exec.state.ttl.
func stateTTLValue(v string) error {
	if d, err := types.ParseDuration(v); err != nil || d < 0 {
		return fmt.Errorf("must be a duration such as '1h' or '0' (no expiry), got '%s'", v)
	}
	return nil
}

// stateTTL is the session's table.exec.state.ttl in milliseconds.
func (s *Session) stateTTL() int64 {
	v, ok := s.Config[KeyStateTTL]
	if !ok {
		return 0
	}
	d, err := types.ParseDuration(v)
	if err != nil {
		return 0 // checked by SET
	}
	return d.Milliseconds()
}
