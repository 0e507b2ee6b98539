package parser

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
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
// copied so that the caret lines up in a terminal; other control characters
// are shown escaped (see Printable), and the caret moves past their escapes.
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
	for i := start; i < off; {
		r, n := utf8.DecodeRuneInString(src[i:])
		switch esc := escape(src[i:], r, n); {
		case r == '\t':
			pad.WriteByte('\t')
		case esc != "":
			pad.WriteString(strings.Repeat(" ", len(esc)))
		default:
			pad.WriteByte(' ')
		}
		i += n
	}
	return "  " + printable(line, true) + "\n  " + pad.String() + "^"
}

// Printable renders s for an error message: control characters, invisible
// format characters (such as U+202E, which reverses the text after it) and
// bytes that are not UTF-8 are shown as escapes (\x00, \u202e), so that SQL
// echoed in a message can neither garble a terminal nor hide text.
func Printable(s string) string { return printable(s, false) }

func printable(s string, keepTabs bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if esc := escape(s[i:], r, n); esc != "" && !(keepTabs && r == '\t') {
			b.WriteString(esc)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// escape returns how Printable shows the rune r of n bytes at the start of
// s, or "" for a character shown as itself.
func escape(s string, r rune, n int) string {
	switch {
	case r == '\n':
		return `\n`
	case r == '\r':
		return `\r`
	case r == '\t':
		return `\t`
	case r == utf8.RuneError && n == 1:
		return fmt.Sprintf("\\x%02x", s[0])
	case r < 0x80 && unicode.IsControl(r):
		return fmt.Sprintf("\\x%02x", r)
	case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
		return fmt.Sprintf("\\u%04x", r)
	}
	return ""
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
	return Printable(prefix+e.Error()) + "\n" + e.Caret(src)
}

// describe names a token for an "unexpected ..." message.
func describe(t token) string {
	switch t.kind {
	case tkEOF:
		if t.text != "" { // the end of a hint
			return quote(t.text)
		}
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
// reads as written; control characters are escaped (Printable).
func quote(s string) string {
	return `"` + Printable(s) + `"`
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
