package session

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/types"
)

// Flink's mini-batch keys: a group aggregate folds the changes of up to
// size input rows, or of allow-latency, into one change per group. As in
// Flink, enabled needs allow-latency too; size, which Flink requires as
// well, defaults to 5000 rows.
const (
	KeyMiniBatch        = "table.exec.mini-batch.enabled"
	KeyMiniBatchLatency = "table.exec.mini-batch.allow-latency"
	KeyMiniBatchSize    = "table.exec.mini-batch.size"
)

// miniBatch reads the mini-batch keys: off unless enabled is 'true'.
func (s *Session) miniBatch() (planner.MiniBatch, error) {
	if !strings.EqualFold(s.config(KeyMiniBatch, "false"), "true") {
		return planner.MiniBatch{}, nil
	}
	lv, ok := s.Config[KeyMiniBatchLatency]
	if !ok {
		return planner.MiniBatch{}, fmt.Errorf("%w: '%s' is 'true', so '%s' must be set too (e.g. '2s'), as in Flink", planner.ErrOption, KeyMiniBatch, KeyMiniBatchLatency)
	}
	latency, err := types.ParseDuration(lv)
	if err != nil || latency <= 0 {
		return planner.MiniBatch{}, fmt.Errorf("%w: '%s' must be a positive duration such as '2s', got '%s'", planner.ErrOption, KeyMiniBatchLatency, lv)
	}
	size := 5000
	if v, ok := s.Config[KeyMiniBatchSize]; ok {
		if size, err = strconv.Atoi(v); err != nil || size <= 0 {
			return planner.MiniBatch{}, fmt.Errorf("%w: '%s' must be a positive number of rows, got '%s'", planner.ErrOption, KeyMiniBatchSize, v)
		}
	}
	return planner.MiniBatch{Size: size, Latency: latency}, nil
}
