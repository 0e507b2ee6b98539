package repl

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
)

// keywords are the words Tab completes at any place outside quotes, with
// the names of the session's catalog and the functions.
var keywords = []string{
	"ALL", "AND", "AS", "ASC", "BETWEEN", "BIGINT", "BOOLEAN", "BY", "CASE", "CAST", "COMMENT", "CREATE",
	"DATE", "DECIMAL", "DESC", "DESCRIBE", "DESCRIPTOR", "DISTINCT", "DOUBLE", "DRAIN", "DROP", "ELSE",
	"END", "EXISTS", "EXIT", "EXPLAIN", "FALSE", "FLOAT", "FROM", "FUNCTIONS", "GROUP", "HAVING", "HELP",
	"IF", "IN", "INSERT", "INT", "INTERVAL", "INTO", "IS", "JOB", "JOBS", "LIKE", "LIMIT", "METADATA",
	"NOT", "NULL", "ON", "OR", "ORDER", "OVER", "PARTITION", "PARTITIONED", "PLAN", "PRIMARY", "KEY",
	"QUIT", "RESET", "SAVEPOINT", "SECOND", "SELECT", "SET", "SHOW", "SOURCE", "STOP", "STRING",
	"TABLE", "TABLES", "THEN", "TIMESTAMP", "TIMESTAMP_LTZ", "TRUE", "UNION", "VALUES", "VARCHAR", "VIEW",
	"VIEWS", "WATERMARK", "WHEN", "WHERE", "WITH", "MINUTE", "HOUR", "DAY",
}

// completer is the REPL's Tab completion (readline.AutoCompleter). It
// reads the statement typed so far, in and the current line, to tell what
// is being typed: a SET key after SET ', a connector option key or the
// connector's name inside WITH (, else a keyword, a table, view, column or
// function name. Columns offered are those of the tables and views the
// statement names, or of t after "t.".
type completer struct {
	sess *session.Session
	in   *input
}

var (
	connectorOpt = regexp.MustCompile(`(?i)'connector'\s*=\s*'([^']*)'`)
	setQuote     = regexp.MustCompile(`(?i)(^|;)\s*SET\s+'$`)
	withOpen     = regexp.MustCompile(`(?is)\bWITH\s*\(`)
	keyStart     = regexp.MustCompile(`[(,]\s*'$`)
	connValue    = regexp.MustCompile(`(?i)'connector'\s*=\s*'$`)
)

func (c *completer) Do(line []rune, pos int) ([][]rune, int) {
	text := c.in.text[c.in.done:] + string(line[:pos])
	// Inside quotes: the text after the opening quote.
	if q := strings.LastIndexByte(text, '\''); q >= 0 && strings.Count(text, "'")%2 == 1 {
		word, before := text[q+1:], text[:q+1]
		var cands []string
		switch {
		case setQuote.MatchString(before):
			cands = session.Keys()
		case connValue.MatchString(before):
			cands = planner.Connectors()
		case inWith(before) && keyStart.MatchString(before):
			cands = c.optionKeys(text)
		}
		return suffixes(word, cands, "'", false)
	}
	i := len(text)
	for i > 0 && isWordByte(text[i-1]) {
		i--
	}
	word := text[i:]
	if word == "" && (i == 0 || text[i-1] != '.') {
		return nil, 0
	}
	if i > 0 && text[i-1] == '.' {
		j := i - 1
		for j > 0 && isWordByte(text[j-1]) {
			j--
		}
		return suffixes(word, c.columns([]string{text[j : i-1]}, text), "", false)
	}
	cat := c.catalog()
	cands := slices.Concat(cat.tables, cat.views, c.sess.Catalog.Functions(), c.columns(nil, text))
	out, n := suffixes(word, cands, "", false)
	kw, _ := suffixes(word, keywords, "", true)
	return append(out, kw...), n
}

type names struct{ tables, views []string }

func (c *completer) catalog() names {
	return names{c.sess.Catalog.Tables(), c.sess.Catalog.Views()}
}

// columns returns the columns of the tables and views in from, or, if
// from is empty, of those the statement text names.
func (c *completer) columns(from []string, text string) []string {
	cat := c.catalog()
	if from == nil {
		words := wordsOf(text)
		for _, n := range slices.Concat(cat.tables, cat.views) {
			if words[strings.ToLower(n)] {
				from = append(from, n)
			}
		}
	}
	var out []string
	for _, n := range from {
		out = append(out, c.sess.Catalog.Columns(n)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// optionKeys are the WITH option keys of the connector the statement
// names, or of every connector while it names none.
func (c *completer) optionKeys(text string) []string {
	if m := connectorOpt.FindStringSubmatch(text); m != nil {
		if keys := planner.ConnectorOptions(m[1]); keys != nil {
			return keys
		}
	}
	var keys []string
	for _, conn := range planner.Connectors() {
		keys = append(keys, planner.ConnectorOptions(conn)...)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// inWith says that text ends inside the parentheses of a WITH clause.
func inWith(text string) bool {
	loc := withOpen.FindAllStringIndex(text, -1)
	if loc == nil {
		return false
	}
	depth := 1
	for _, ch := range text[loc[len(loc)-1][1]:] {
		switch ch {
		case '(':
			depth++
		case ')':
			depth--
		}
	}
	return depth > 0
}

// suffixes returns what completes word to each candidate that starts with
// it (ignoring case), followed by end, and the length of word. A keyword
// is given in the case of word's first letter.
func suffixes(word string, cands []string, end string, keyword bool) ([][]rune, int) {
	var out [][]rune
	lower := word != "" && unicode.IsLower(rune(word[0]))
	for _, c := range cands {
		if len(c) < len(word) || !strings.EqualFold(c[:len(word)], word) {
			continue
		}
		if keyword && lower {
			c = strings.ToLower(c)
		}
		out = append(out, []rune(c[len(word):]+end))
	}
	return out, len([]rune(word))
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// wordsOf returns the words of text, lower case.
func wordsOf(text string) map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return r > 127 || !isWordByte(byte(r)) }) {
		words[strings.ToLower(w)] = true
	}
	return words
}
