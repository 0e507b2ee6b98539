package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/session"
	"github.com/strandsql/strand/types"
)

// sessionFlags are the flags of every command that runs statements.
type sessionFlags struct {
	Parallelism int      `help:"Subtasks per operator (default: the number of CPUs)." placeholder:"N"`
	Set         []string `help:"A session option, as SET 'key' = 'value' (repeatable)." placeholder:"KEY=VALUE" sep:"none"`
}

// apply sets the flags on sess.
func (f *sessionFlags) apply(sess *session.Session, stderr io.Writer) error {
	if f.Parallelism < 0 {
		fmt.Fprintln(stderr, "strand: --parallelism must be positive")
		return exitStatus(2)
	}
	sess.Parallelism = f.Parallelism
	for _, kv := range f.Set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			fmt.Fprintf(stderr, "strand: --set %q: want key=value\n", kv)
			return exitStatus(2)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if err := sess.SetOption(k, v); err != nil {
			fmt.Fprintf(stderr, "strand: --set %s=%s: %v\n", k, v, err)
			return exitStatus(2)
		}
	}
	return nil
}

// duration is a flag's duration in Flink's syntax ("2s", "500ms", "1 min")
// or Go's ("1m30s"). Unlike a SET value, a bare number is refused: on a
// command line `--checkpoint-interval 2` would otherwise mean 2 ms.
type duration struct {
	text string // as written, for the session's settings
	d    time.Duration
}

func (d *duration) Decode(ctx *kong.DecodeContext) error {
	var s string
	if err := ctx.Scan.PopValueInto("duration", &s); err != nil {
		return err
	}
	v, err := parseFlagDuration(s)
	if err != nil {
		return err
	}
	*d = duration{text: s, d: v}
	return nil
}

// parseFlagDuration parses a positive duration with a unit.
func parseFlagDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t != "" && strings.Trim(t, "0123456789.") == "" {
		return 0, fmt.Errorf("%q has no unit: write it with one, e.g. %ss, %sms or %smin", s, t, t, t)
	}
	v, err := types.ParseDuration(t)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration such as 2s, 500ms or 1min", s)
	}
	return v, nil
}

// size is a flag's managed memory size in Flink's syntax ("64mb", "1 gb");
// a bare number is bytes, as in memory.managed.size, whose floor (one
// segment) it has too.
type size struct{ n int64 }

func (s *size) Decode(ctx *kong.DecodeContext) error {
	var v string
	if err := ctx.Scan.PopValueInto("size", &v); err != nil {
		return err
	}
	n, ok := types.ParseMemorySize(v)
	if !ok || n < exec.MinMemory {
		return fmt.Errorf("%q is not a memory size of at least %s, such as 64mb or 1gb", v, exec.Bytes(exec.MinMemory))
	}
	s.n = n
	return nil
}
