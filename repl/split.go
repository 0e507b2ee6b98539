package repl

import "strings"

// Split cuts src into statements: each ends at a ';' that stands outside
// quotes ('...', `...`, "...") and comments (--, /* */, hints /*+ */),
// and keeps that ';'. rest is what follows the last statement; complete
// says that rest holds nothing but blanks and closed comments, so that the
// input so far needs no further line.
func Split(src string) (stmts []string, rest string, complete bool) {
	start := 0
	// pending says that text other than blanks and comments follows start.
	pending := false
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ';':
			stmts = append(stmts, src[start:i+1])
			start, pending = i+1, false
			i++
		case c == '\'' || c == '`' || c == '"':
			pending = true
			end := closeQuote(src, i)
			if end < 0 {
				return stmts, src[start:], false
			}
			i = end
		case c == '-' && strings.HasPrefix(src[i:], "--"):
			nl := strings.IndexByte(src[i:], '\n')
			if nl < 0 {
				return stmts, src[start:], !pending
			}
			i += nl + 1
		case c == '/' && strings.HasPrefix(src[i:], "/*+"):
			pending = true
			end := closeHint(src, i+3)
			if end < 0 {
				return stmts, src[start:], false
			}
			i = end
		case c == '/' && strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return stmts, src[start:], false
			}
			i += 2 + end + 2
		default:
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				pending = true
			}
			i++
		}
	}
	return stmts, src[start:], !pending
}

// closeQuote returns the offset after the quote that closes the one at i
// (a doubled quote stands for itself), or -1.
func closeQuote(src string, i int) int {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		if src[j] != q {
			continue
		}
		if j+1 < len(src) && src[j+1] == q {
			j++
			continue
		}
		return j + 1
	}
	return -1
}

// closeHint returns the offset after the */ that closes a hint whose text
// starts at i, or -1. Quotes inside a hint may hold */, as the lexer's.
func closeHint(src string, i int) int {
	for i < len(src) {
		switch c := src[i]; {
		case c == '\'' || c == '`':
			end := closeQuote(src, i)
			if end < 0 {
				return -1
			}
			i = end
		case c == '*' && strings.HasPrefix(src[i:], "*/"):
			return i + 2
		default:
			i++
		}
	}
	return -1
}
