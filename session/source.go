package session

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/planner"
)

// maxSourceDepth bounds SOURCE within SOURCE: a file that sources itself
// fails instead of recursing until the stack is gone.
const maxSourceDepth = 16

// source runs SOURCE 'file': the file's statements in order, as if typed,
// stopping at the first error, which points into the file.
func (s *Session) source(ctx context.Context, st *parser.Source) error {
	path := st.Path.Value
	var depth int
	s.locked(func() { depth = s.sourcing })
	if depth >= maxSourceDepth {
		return planner.Errorf(st.Start, planner.ErrUnsupported, "SOURCE '%s': more than %d files sourced within each other", path, maxSourceDepth)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return planner.Errorf(st.Path.Start, planner.ErrOption, "SOURCE: %v", err)
	}
	src := string(b)
	var prev string
	s.locked(func() { s.sourcing, prev, s.File = s.sourcing+1, s.File, path })
	defer s.locked(func() { s.sourcing, s.File = s.sourcing-1, prev })
	return inFile(path, src, s.ExecScript(ctx, src))
}

// inFile places err, if it has a position in src, in file.
func inFile(file, src string, err error) error {
	var pe *planner.Error
	if errors.As(err, &pe) {
		if pe.Src == "" {
			e := *pe
			e.Src, e.File = src, file
			return &e
		}
		return err
	}
	var se *parser.Error
	if errors.As(err, &se) {
		return &planner.Error{Pos: se.Pos, Kind: se, Msg: "syntax error: " + se.Msg, Src: src, File: file}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}
