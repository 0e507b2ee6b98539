package repl

import "strings"

// Split cuts src into statements: each ends at a ';' that stands outside
// quotes ('...', `...`, "...") and comments (--, /* */, hints /*+ */),
// and keeps that ';'. rest is what follows the last statement; complete
// says that rest holds nothing but blanks and closed comments, so that the
// input so far needs no further line.
//
// A statement set (EXECUTE STATEMENT SET BEGIN ... END; or BEGIN
// STATEMENT SET; ... END;) is one statement: its INSERTs' semicolons do not
// end it, its END's does.
func Split(src string) (stmts []string, rest string, complete bool) {
	start := 0
	// pending says that text other than blanks and comments follows start.
	pending := false
	// set is the start of the statement set being read, or -1.
	set := -1
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ';':
			piece := src[start : i+1]
			switch {
			case set >= 0 && leadWords(piece, 1) == "END":
				stmts = append(stmts, src[set:i+1])
				set = -1
			case set >= 0:
			case opensSet(piece):
				set = start
			default:
				stmts = append(stmts, piece)
			}
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
	if set >= 0 {
		return stmts, src[set:], false
	}
	return stmts, src[start:], !pending
}

// opensSet reports whether a statement starts a statement set.
func opensSet(stmt string) bool {
	w := leadWords(stmt, 4)
	return w == "BEGIN STATEMENT SET" || strings.HasPrefix(w, "EXECUTE STATEMENT SET")
}

// leadWords returns the first n words of stmt, upper-case and separated by
// one blank, skipping blanks and comments; it stops at anything else.
func leadWords(stmt string, n int) string {
	var words []string
	i := 0
	for i < len(stmt) && len(words) < n {
		switch c := stmt[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(stmt[i:], "--"):
			nl := strings.IndexByte(stmt[i:], '\n')
			if nl < 0 {
				return strings.Join(words, " ")
			}
			i += nl + 1
		case strings.HasPrefix(stmt[i:], "/*") && !strings.HasPrefix(stmt[i:], "/*+"):
			end := strings.Index(stmt[i+2:], "*/")
			if end < 0 {
				return strings.Join(words, " ")
			}
			i += 2 + end + 2
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(stmt) && (stmt[j] >= 'a' && stmt[j] <= 'z' || stmt[j] >= 'A' && stmt[j] <= 'Z' || stmt[j] == '_') {
				j++
			}
			words = append(words, strings.ToUpper(stmt[i:j]))
			i = j
		default:
			return strings.Join(words, " ")
		}
	}
	return strings.Join(words, " ")
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
