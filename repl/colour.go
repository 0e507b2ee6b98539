package repl

import (
	"bytes"
	"fmt"
	"io"
)

// ANSI colours of the REPL's messages on a terminal: errors red, [INFO]
// green, warnings yellow. Off when output is not a terminal or NO_COLOR
// is set (https://no-color.org).
const (
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	reset  = "\x1b[0m"
)

// errorf prints an error, "[ERROR] " and the message (with its caret
// lines), red on a colour terminal.
func (r *REPL) errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if r.colour {
		fmt.Fprintf(r.err, "%s[ERROR] %s%s\n", red, msg, reset)
		return
	}
	fmt.Fprintf(r.err, "[ERROR] %s\n", msg)
}

// tags colours the tag that starts a message line of the session's:
// [INFO], [WARNING], [ERROR] and "warning:". The session writes each
// message whole, so a tag is at the start of a write or after a line break.
type tags struct{ w io.Writer }

var tagColours = []struct {
	tag    []byte
	colour string
}{
	{[]byte("[INFO]"), green},
	{[]byte("[WARNING]"), yellow},
	{[]byte("warning:"), yellow},
	{[]byte("[ERROR]"), red},
}

func (t tags) Write(b []byte) (int, error) {
	var out bytes.Buffer
	rest := b
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		coloured := false
		for _, tc := range tagColours {
			if bytes.HasPrefix(line, tc.tag) {
				out.WriteString(tc.colour)
				out.Write(tc.tag)
				out.WriteString(reset)
				out.Write(line[len(tc.tag):])
				coloured = true
				break
			}
		}
		if !coloured {
			out.Write(line)
		}
	}
	if _, err := t.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(b), nil
}
