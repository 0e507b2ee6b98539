package planner

import (
	"strings"

	"github.com/strandsql/strand/parser"
)

// Flink's legacy table options (connector.type and the keys of the
// descriptor API before FLIP-122, as Nexmark's q13 declares its side
// input) name what today's keys name: a table declared with them is taken
// as if declared with these, and an option error names the new key. A
// legacy key without a counterpart here is refused, naming the keys to
// write instead.
var legacyKeys = map[string]string{
	"connector.type": "connector",
	"connector.path": "path",
	"format.type":    "format",
}

// legacyOptions returns opts with the legacy keys renamed, or an error at
// a legacy key strand cannot map.
func legacyOptions(opts []*parser.Option) ([]*parser.Option, error) {
	legacy := false
	for _, o := range opts {
		legacy = legacy || o.Key == "connector.type"
	}
	if !legacy {
		return opts, nil
	}
	out := make([]*parser.Option, len(opts))
	for i, o := range opts {
		key, ok := legacyKeys[o.Key]
		switch {
		case ok:
			c := *o
			c.Key = key
			o = &c
		case o.Key == "connector" || o.Key == "path" || o.Key == "format":
			return nil, errorf(o.Start, ErrOption, "option '%s' mixes with the legacy option 'connector.type'; write 'connector', 'path' and 'format' alone", o.Key)
		case strings.HasPrefix(o.Key, "connector.") || strings.HasPrefix(o.Key, "format.") || o.Key == "update-mode":
			return nil, errorf(o.Start, ErrOption, "legacy option '%s' has no counterpart in strand; declare the table with today's keys ('connector', 'path', 'format', and the format's own, such as 'csv.field-delimiter')", o.Key)
		}
		out[i] = o
	}
	return out, nil
}
