package session

import (
	"maps"
	"runtime"
	"slices"
	"strconv"
)

// KeyHistoryFile is the SQL client's history file (Flink's key); the REPL
// reads it, --history-file overrides it.
const KeyHistoryFile = "sql-client.history-file"

// defaults are the values strand uses for its keys when they are not
// set, as SET without arguments shows them.
var defaults = map[string]string{
	KeyBatchSize:          "4096",
	KeyMemory:             "256mb",
	KeyTimeZone:           "UTC",
	KeyCheckpointInterval: "(off)",
	KeyCheckpointMode:     "EXACTLY_ONCE",
	KeyCheckpointRetained: "2",
	KeyCheckpointTimeout:  "10 min",
	KeyCheckpointPause:    "0 ms",
	KeyTolerableFailures:  "0",
	KeyRestartStrategy:    "fixed-delay",
	KeyRestartAttempts:    "3",
	KeyRestartDelay:       "1s",
	KeyStateDir:           "(--state-dir)",
	KeySavepointPath:      "(none)",
	KeyIgnoreUnclaimed:    "false",
	KeySavepointDir:       "<state-dir>/savepoints",
	KeyResultMode:         "tableau",
	KeyMaxRows:            "1000",
	KeyHistoryFile:        "~/.strand_history",
	KeyIdleTimeout:        "0 ms (off)",
}

// Setting is one session option as SET lists it: its value ("" when not
// set) and the value strand uses when it is not.
type Setting struct{ Key, Value, Default string }

// Settings returns every key strand reads, and each Flink key that was
// set, sorted by key.
func (s *Session) Settings() []Setting {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings()
}

func (s *Session) settings() []Setting {
	keys := slices.Collect(maps.Keys(strandKeys))
	for k := range s.Config {
		if _, ok := strandKeys[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out := make([]Setting, len(keys))
	for i, k := range keys {
		d, ok := defaults[k]
		switch {
		case k == KeyParallelism:
			d = strconv.Itoa(runtime.NumCPU())
			if s.Parallelism > 0 {
				d = strconv.Itoa(s.Parallelism)
			}
		case k == KeyStateDir && s.Durable.StateDir != "":
			d = s.Durable.StateDir
		case !ok:
			d = "(ignored by strand)"
		}
		out[i] = Setting{Key: k, Value: s.Config[k], Default: d}
	}
	return out
}

// showSettings is SET without arguments: every setting, its value and
// its default.
func (s *Session) showSettings() error {
	var rows [][]string
	for _, st := range s.settings() {
		rows = append(rows, []string{st.Key, st.Value, st.Default})
	}
	return s.table([]string{"key", "value", "default"}, rows)
}

// Option returns the value of key, or its default when not set.
func (s *Session) Option(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.Config[key]; ok {
		return v
	}
	return defaults[key]
}

// Value returns the value of key and whether it is set.
func (s *Session) Value(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.Config[key]
	return v, ok
}

// Keys returns every key SET takes: strand's and Flink's, sorted.
func Keys() []string {
	keys := slices.Concat(slices.Collect(maps.Keys(strandKeys)), slices.Collect(maps.Keys(flinkKeys)))
	slices.Sort(keys)
	return keys
}
