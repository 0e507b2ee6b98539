package parser

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

type tokKind int

const (
	tkEOF    tokKind = iota
	tkWord           // bare word: keyword or identifier
	tkQuoted         // `back-quoted identifier`
	tkString         // 'string'
	tkNumber
	tkOp
	tkHint // /*+ ... */; sub holds the tokens between the delimiters
	tkBad  // text no rule accepts; Msg says why
)

type token struct {
	kind tokKind
	text string // as written
	val  string // unescaped value of strings and quoted identifiers
	pos  Pos
	msg  string  // for tkBad
	sub  []token // for tkHint, ending in a tkEOF token at the closing */
}

// The rules are tried in order and the first match wins. Each rule is a
// separate regexp run over the rest of the input, so the common tokens come
// first, and the patterns are written to be one-pass (each step decided by
// the next character), which Go's regexp matches in time proportional to the
// token rather than to the remaining input. Operators that begin comments or
// numbers ("-", "/", ".") come after those. The unterminated-literal and
// catch-all rules turn what would be a lexer failure into a token, so that
// the parser reports it at the right place with a readable message.
//
// A hint, /*+ ... */, is one token, as the hint begin and end are tokens in
// Calcite: it ends at the first */ outside quotes (so a string or quoted
// name in it may hold */), and its contents are lexed like any SQL for the
// parser to read where a hint may stand. A /*+ that nothing closes is an
// error token, never a comment, so a broken hint is not silently dropped.
var sqlLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Space", Pattern: `\s+`},
	{Name: "Word", Pattern: `[\p{L}_][\p{L}\p{N}_$]*`},
	{Name: "Op", Pattern: `<[>=]?|>=?|!=|=>?|\|\||[+*%(),;\[\]]`},
	{Name: "Number", Pattern: `(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?`},
	{Name: "LineComment", Pattern: `--[^\n]*`},
	{Name: "Hint", Pattern: `/\*\+(?:[^*'\x60]|'[^']*'|\x60[^\x60]*\x60|\*+(?:[^*/'\x60]|'[^']*'|\x60[^\x60]*\x60))*\*+/`},
	{Name: "OpenHint", Pattern: `/\*\+(?s:.*)`},
	{Name: "BlockComment", Pattern: `/\*[^*]*\*+(?:[^/*][^*]*\*+)*/`},
	{Name: "OpenComment", Pattern: `/\*(?s:.*)`},
	{Name: "Op2", Pattern: `[-/.]`},
	{Name: "String", Pattern: `'[^']*'(?:'[^']*')*`},
	{Name: "OpenString", Pattern: `'(?s:.*)`},
	{Name: "Quoted", Pattern: "`[^`]*`(?:`[^`]*`)*"},
	{Name: "OpenQuoted", Pattern: "`(?s:.*)"},
	{Name: "Bad", Pattern: `(?s:.)`},
})

var tokTypes = sqlLexer.Symbols()

// lex splits src into tokens, dropping white space and comments. The result
// always ends with a tkEOF token.
func lex(src string) []token {
	var toks []token
	end := func(off int) Pos {
		line := 1 + strings.Count(src[:off], "\n")
		col := 1 + len([]rune(src[strings.LastIndexByte(src[:off], '\n')+1:off]))
		return Pos{Offset: off, Line: line, Column: col}
	}
	lx, err := sqlLexer.LexString("", src)
	if err != nil {
		return []token{{kind: tkBad, msg: err.Error()}, {kind: tkEOF, pos: end(len(src))}}
	}
	for {
		t, err := lx.Next()
		if err != nil {
			// Unreachable with a catch-all rule, but stay total.
			off := 0
			if len(toks) > 0 {
				off = toks[len(toks)-1].pos.Offset
			}
			toks = append(toks, token{kind: tkBad, pos: end(off), msg: "invalid input"})
			break
		}
		if t.EOF() {
			break
		}
		tk := token{text: t.Value, pos: Pos{Offset: t.Pos.Offset, Line: t.Pos.Line, Column: t.Pos.Column}}
		switch t.Type {
		case tokTypes["Space"], tokTypes["LineComment"], tokTypes["BlockComment"]:
			continue
		case tokTypes["String"]:
			tk.kind = tkString
			tk.val = strings.ReplaceAll(t.Value[1:len(t.Value)-1], "''", "'")
		case tokTypes["Quoted"]:
			tk.kind = tkQuoted
			tk.val = strings.ReplaceAll(t.Value[1:len(t.Value)-1], "``", "`")
		case tokTypes["Number"]:
			tk.kind = tkNumber
		case tokTypes["Word"]:
			tk.kind = tkWord
		case tokTypes["Op"], tokTypes["Op2"]:
			tk.kind = tkOp
		case tokTypes["Hint"]:
			tk.kind = tkHint
			tk.sub = lexHint(t.Value, tk.pos)
		case tokTypes["OpenHint"]:
			tk.kind, tk.msg = tkBad, "unterminated /*+ hint: no */ closes it outside quotes"
		case tokTypes["OpenComment"]:
			tk.kind, tk.msg = tkBad, "unterminated /* comment"
		case tokTypes["OpenString"]:
			tk.kind, tk.msg = tkBad, "unterminated string literal"
		case tokTypes["OpenQuoted"]:
			tk.kind, tk.msg = tkBad, "unterminated quoted identifier"
		default:
			tk.kind, tk.msg = tkBad, "unexpected character "+quote(t.Value)
			if t.Value == `"` {
				tk.msg += " (string literals use single quotes, identifiers back-quotes)"
			}
		}
		toks = append(toks, tk)
	}
	return append(toks, token{kind: tkEOF, pos: end(len(src))})
}

// lexHint lexes the contents of hint, a /*+ ... */ token at pos, with
// positions in the whole source. Its final tkEOF token stands at the
// closing */ and is named so in messages.
func lexHint(hint string, pos Pos) []token {
	toks := lex(hint[3 : len(hint)-2])
	for i := range toks {
		p := &toks[i].pos
		if p.Line == 1 {
			p.Column += pos.Column + 2
		}
		p.Offset += pos.Offset + 3
		p.Line += pos.Line - 1
	}
	toks[len(toks)-1].text = "*/"
	return toks
}

// upper upper-cases ASCII letters only. Keywords are ASCII, and Unicode case
// mapping would let look-alikes such as "ſelect" match SELECT.
func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
