package parser

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSyntax is matched by errors.Is for every error this package returns.
var ErrSyntax = errors.New("syntax error")

// Error is a syntax error at a position in the source.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%d:%d: syntax error: %s", e.Pos.Line, e.Pos.Column, e.Msg)
}

// Unwrap makes errors.Is(err, ErrSyntax) hold.
func (e *Error) Unwrap() error { return ErrSyntax }

// Caret returns the source line holding the error, indented by two spaces,
// and below it a caret under the offending column. Tabs before the column are
// copied so that the caret lines up in a terminal.
func (e *Error) Caret(src string) string {
	off := min(max(e.Pos.Offset, 0), len(src))
	start := strings.LastIndexByte(src[:off], '\n') + 1
	end := strings.IndexByte(src[off:], '\n')
	if end < 0 {
		end = len(src)
	} else {
		end += off
	}
	line := strings.TrimSuffix(src[start:end], "\r")
	var pad strings.Builder
	for _, r := range src[start:off] {
		if r == '\t' {
			pad.WriteByte('\t')
		} else {
			pad.WriteByte(' ')
		}
	}
	return "  " + line + "\n  " + pad.String() + "^"
}

// FormatError renders err for a user: "file:line:col: message", the source
// line and a caret. file may be empty. Errors that are not *Error are
// returned as their text.
func FormatError(file, src string, err error) string {
	var e *Error
	if err == nil {
		return ""
	}
	if !errors.As(err, &e) {
		return err.Error()
	}
	prefix := ""
	if file != "" {
		prefix = file + ":"
	}
	return prefix + e.Error() + "\n" + e.Caret(src)
}

// describe names a token for an "unexpected ..." message.
func describe(t token) string {
	switch t.kind {
	case tkEOF:
		return "end of input"
	case tkString:
		return "string " + abbrev(t.text)
	case tkNumber:
		return "number " + abbrev(t.text)
	case tkQuoted:
		return "identifier " + abbrev(t.text)
	}
	return quote(abbrev(t.text))
}

func abbrev(s string) string {
	if r := []rune(s); len(r) > 24 {
		return string(r[:20]) + "..."
	}
	return s
}

// quote wraps s in double quotes without Go escaping, so that non-ASCII text
// reads as written.
func quote(s string) string {
	return `"` + strings.ReplaceAll(s, "\n", `\n`) + `"`
}

// expecting joins the alternatives a parser tried at one token.
func expecting(alts []string) string {
	const maxShown = 6
	if len(alts) > maxShown {
		return strings.Join(alts[:maxShown], ", ") + ", ..."
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return strings.Join(alts[:len(alts)-1], ", ") + " or " + alts[len(alts)-1]
}

// clauseWords are the keywords that, misspelt, are read as an alias.
var clauseWords = []string{"FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT",
	"UNION", "JOIN", "INNER", "LEFT", "RIGHT", "CROSS", "FULL", "SELECT", "EXCEPT", "INTERSECT"}

// misspelt returns the clause keyword that word is one typo away from, or "".
func misspelt(word string) string {
	w := upper(word)
	if len(w) < 3 {
		return ""
	}
	for _, kw := range clauseWords {
		if w != kw && editDistance(w, kw) <= 1 {
			return kw
		}
	}
	return ""
}

// editDistance counts insertions, deletions, substitutions and swaps of
// adjacent letters (optimal string alignment distance).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
