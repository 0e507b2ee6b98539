package connector

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/strandsql/strand/types"
)

// ErrOption marks an invalid WITH option: an unknown key, a bad value, a
// missing required option or an unknown connector.
var ErrOption = errors.New("invalid connector option")

// OptionError describes one invalid option.
type OptionError struct {
	// Key is the offending option ("connector" for an unknown connector).
	Key string
	// Msg is the whole sentence, naming the key and the connector.
	Msg string
	// Valid lists the accepted keys, connectors or values, if there is a
	// closed set to choose from.
	Valid []string
	// what names the members of Valid ("options", "connectors", "values").
	what string
	// AtValue says the option's value, not its key, is at fault: an error
	// message's caret then points at the value.
	AtValue bool
}

func (e *OptionError) Error() string {
	if len(e.Valid) == 0 {
		return e.Msg
	}
	what := e.what
	if what == "" {
		what = "values"
	}
	var b strings.Builder
	b.WriteString(e.Msg)
	b.WriteString(" (valid ")
	b.WriteString(what)
	b.WriteString(": ")
	for i, v := range e.Valid {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("'" + v + "'")
	}
	b.WriteString(")")
	return b.String()
}

// Unwrap makes errors.Is(err, ErrOption) hold.
func (e *OptionError) Unwrap() error { return ErrOption }

func badValue(key, val, why string) *OptionError {
	return &OptionError{Key: key, Msg: fmt.Sprintf("invalid value '%s' for option '%s': %s", val, key, why)}
}

func badChoice(key, val string, valid ...string) *OptionError {
	return &OptionError{Key: key, Msg: fmt.Sprintf("invalid value '%s' for option '%s'", val, key), Valid: valid, what: "values"}
}

// opts reads a table's options for one connector.
type opts struct {
	conn string
	m    map[string]string
}

// checkKeys refuses the first key (in sorted order, so that the error does
// not depend on map order) that is neither in valid nor accepted by dynamic.
func (o *opts) checkKeys(valid []string, dynamic func(key string) bool) error {
	first := ""
	for k := range o.m {
		if slices.Contains(valid, k) || dynamic != nil && dynamic(k) {
			continue
		}
		if first == "" || k < first {
			first = k
		}
	}
	if first == "" {
		return nil
	}
	return &OptionError{
		Key:   first,
		Msg:   fmt.Sprintf("unknown option '%s' for connector '%s'", first, o.conn),
		Valid: valid,
		what:  "options",
	}
}

func (o *opts) get(key string) (string, bool) {
	v, ok := o.m[key]
	return v, ok
}

func (o *opts) required(key string) (string, error) {
	v, ok := o.get(key)
	if !ok {
		return "", &OptionError{Key: key, Msg: fmt.Sprintf("missing required option '%s' for connector '%s'", key, o.conn)}
	}
	if v == "" {
		return "", badValue(key, v, "must not be empty")
	}
	return v, nil
}

func (o *opts) str(key, def string) string {
	if v, ok := o.get(key); ok {
		return v
	}
	return def
}

func (o *opts) boolean(key string, def bool) (bool, error) {
	v, ok := o.get(key)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, badChoice(key, v, "true", "false")
}

func (o *opts) integer(key string, def, lo, hi int64) (int64, error) {
	v, ok := o.get(key)
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, badValue(key, v, fmt.Sprintf("must be an integer between %d and %d", lo, hi))
	}
	return n, nil
}

func (o *opts) choice(key, def string, valid ...string) (string, error) {
	v, ok := o.get(key)
	if !ok {
		return def, nil
	}
	for _, c := range valid {
		if strings.EqualFold(v, c) {
			return c, nil
		}
	}
	return "", badChoice(key, v, valid...)
}

// char reads a one-character option. "\t" is accepted spelled out, since a
// literal tab is awkward to type in SQL.
func (o *opts) char(key string, def byte) (byte, error) {
	v, ok := o.get(key)
	if !ok {
		return def, nil
	}
	if v == `\t` {
		return '\t', nil
	}
	if len(v) != 1 || v[0] >= utf8.RuneSelf || v[0] == '\n' || v[0] == '\r' {
		return 0, badValue(key, v, "must be a single ASCII character other than a line break")
	}
	return v[0], nil
}

// durationMs reads Flink's duration syntax (types.ParseDuration) as
// milliseconds.
func durationMs(s string) (int64, bool) {
	d, err := types.ParseDuration(s)
	return d.Milliseconds(), err == nil && d >= 0
}
