package planner

import (
	"errors"
	"fmt"
	"strings"

	"github.com/strandsql/strand/parser"
)

// Error kinds, matched with errors.Is.
var (
	ErrUnknownTable    = errors.New("unknown table")
	ErrUnknownColumn   = errors.New("unknown column")
	ErrUnknownFunction = errors.New("unknown function")
	ErrType            = errors.New("type error")
	ErrOption          = errors.New("invalid option")
	ErrUnsupported     = errors.New("not supported")
	ErrExists          = errors.New("already exists")
)

// Error is a planning error at a position of the statement's source.
type Error struct {
	Pos  parser.Pos
	Kind error
	Msg  string
	// Src and File, when Src is set, are the source text Pos is in and
	// its file: an error found in a statement can point into the CREATE
	// TABLE of an earlier statement or file.
	Src, File string
}

func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Column, e.Msg) }

// Unwrap returns the error's kind.
func (e *Error) Unwrap() error { return e.Kind }

func errorf(pos parser.Pos, kind error, format string, args ...any) *Error {
	return &Error{Pos: pos, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// FormatError renders err for a user: "file:line:col: message" followed by
// the source line and a caret, for syntax and planning errors alike. Other
// errors are returned as their text, prefixed by file when it is set.
func FormatError(file, src string, err error) string {
	var pe *Error
	if errors.As(err, &pe) {
		if pe.Src != "" {
			src, file = pe.Src, pe.File
		}
		prefix := ""
		if file != "" {
			prefix = file + ":"
		}
		caret := (&parser.Error{Pos: pe.Pos}).Caret(src)
		// A message may have lines of its own (a list of checkpoints or
		// operators); each is escaped, the breaks are kept.
		lines := strings.Split(prefix+pe.Error(), "\n")
		for i, l := range lines {
			lines[i] = parser.Printable(l)
		}
		return fmt.Sprintf("%s\n%s", strings.Join(lines, "\n"), caret)
	}
	var se *parser.Error
	if errors.As(err, &se) {
		return parser.FormatError(file, src, err)
	}
	return err.Error()
}

// Errorf returns a positioned error of kind, for the session's statements.
func Errorf(pos parser.Pos, kind error, format string, args ...any) *Error {
	return errorf(pos, kind, format, args...)
}
