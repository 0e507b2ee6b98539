package expr

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"

	"github.com/strandsql/strand/types"
)

// REGEXP, REGEXP_EXTRACT and REGEXP_REPLACE take Java regular expressions
// in Flink. strand runs them with Go's RE2 engine, which reads the common
// syntax the same way (classes, quantifiers, groups, anchors, (?i)) and
// matches leftmost-first as Java does; what RE2 cannot run (backreferences,
// lookaround, possessive quantifiers) is refused: at plan time for a
// literal pattern, as NULL for a pattern from the data (Flink gives NULL
// for a bad pattern). A literal pattern is compiled once, with a required
// literal as a prefilter: most rows of a selective pattern are rejected by
// one substring search, without running the regex.

// regex is a compiled pattern, and a literal every match contains after
// at most lead bytes from its start (lead < 0: unbounded). When lead is
// bounded, a search starts lead bytes before the literal's first
// occurrence instead of trying every position before it; inner is the
// pattern for such a window, with ^ never matching (the window does not
// start the text).
type regex struct {
	re     *regexp.Regexp
	must   []byte
	lead   int
	inner  *regexp.Regexp
	simple *simple // nil unless the pattern has the simple matcher's shape
}

// CheckRegexp returns the error a regex function would meet on pattern p,
// so that a literal pattern is refused when the query is planned.
func CheckRegexp(p string) error {
	_, err := compileRegex(p)
	return err
}

// CheckRegexpGroup returns the error REGEXP_EXTRACT meets on group g of
// pattern p: a group the pattern does not have.
func CheckRegexpGroup(p string, g int64) error {
	r, err := compileRegex(p)
	if err != nil {
		return err
	}
	if g < 0 || g > int64(r.re.NumSubexp()) {
		return fmt.Errorf("group %d is out of range: the pattern has %d groups", g, r.re.NumSubexp())
	}
	return nil
}

// CheckReplacement returns the error REGEXP_REPLACE meets on replacement
// t of pattern p: a bad escape, or a reference to a group p does not have.
func CheckReplacement(p, t string) error {
	r, err := compileRegex(p)
	if err != nil {
		return err
	}
	_, err = parseTemplate([]byte(t), r.re)
	return err
}

func compileRegex(p string) (*regex, error) {
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %v", p, err)
	}
	r := &regex{re: re, lead: -1}
	t, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return r, nil
	}
	t = t.Simplify()
	r.must, r.lead = required(t)
	r.simple = compileSimple(t, re.NumSubexp())
	if r.lead > 0 {
		if r.inner, err = regexp.Compile(noBegin(t).String()); err != nil {
			r.lead = -1
		}
	}
	return r, nil
}

// required is a literal that every match of t contains: the longest
// case-sensitive literal among the parts of a top-level concatenation (or
// captures of one), and the most bytes of a match before it (-1 if
// unbounded or context-dependent).
func required(t *syntax.Regexp) ([]byte, int) {
	for t.Op == syntax.OpCapture {
		t = t.Sub[0]
	}
	lit := func(t *syntax.Regexp) []byte {
		for t.Op == syntax.OpCapture {
			t = t.Sub[0]
		}
		if t.Op == syntax.OpLiteral && t.Flags&syntax.FoldCase == 0 {
			return []byte(string(t.Rune))
		}
		return nil
	}
	if t.Op != syntax.OpConcat {
		return lit(t), 0
	}
	var best []byte
	at := 0
	for k, s := range t.Sub {
		if l := lit(s); len(l) > len(best) {
			best, at = l, k
		}
	}
	lead := 0
	for _, s := range t.Sub[:at] {
		w := maxWidth(s)
		if w < 0 {
			return best, -1
		}
		lead += w
	}
	return best, lead
}

// maxWidth is the most bytes t matches, -1 if unbounded or if t looks at
// the text around it in a way a window would change (line and word
// boundaries).
func maxWidth(t *syntax.Regexp) int {
	switch t.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpNoMatch:
		return 0
	case syntax.OpLiteral:
		return utf8.UTFMax * len(t.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxWidth(t.Sub[0])
	case syntax.OpRepeat:
		w := maxWidth(t.Sub[0])
		if w < 0 || t.Max < 0 {
			return -1
		}
		return w * t.Max
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, s := range t.Sub {
			w := maxWidth(s)
			if w < 0 {
				return -1
			}
			if t.Op == syntax.OpConcat {
				n += w
			} else {
				n = max(n, w)
			}
		}
		return n
	}
	return -1
}

// noBegin is t with ^ (start of text) made to never match.
func noBegin(t *syntax.Regexp) *syntax.Regexp {
	c := *t
	if c.Op == syntax.OpBeginText {
		c = syntax.Regexp{Op: syntax.OpNoMatch}
		return &c
	}
	c.Sub = make([]*syntax.Regexp, len(t.Sub))
	for i, s := range t.Sub {
		c.Sub[i] = noBegin(s)
	}
	return &c
}

// submatch returns the submatch indexes of r's first match in s, or nil.
func (r *regex) submatch(s []byte) []int {
	if len(r.must) == 0 {
		if r.simple != nil {
			return r.simple.find(s, 0)
		}
		return r.re.FindSubmatchIndex(s)
	}
	p := bytes.Index(s, r.must)
	if p < 0 {
		return nil
	}
	if r.simple != nil { // it reads ^ against s itself, so any start will do
		from := 0
		if r.lead >= 0 {
			from = max(0, p-r.lead)
		}
		return r.simple.find(s, from)
	}
	if r.inner == nil || p <= r.lead {
		return r.re.FindSubmatchIndex(s)
	}
	from := p - r.lead
	m := r.inner.FindSubmatchIndex(s[from:])
	for i := range m {
		if m[i] >= 0 {
			m[i] += from
		}
	}
	return m
}

// patterns compiles the regex argument k of nd: once when it is a literal
// (refused at compile time if bad), else per distinct value, a bad one
// giving nil.
type patterns struct {
	fixed *regex
	last  string
	cur   *regex
	bad   bool
}

func (c *compiler) patternArg(e *Call, k int) (*patterns, error) {
	ps := &patterns{}
	if p, ok := litString(e.Args[k]); ok {
		r, err := compileRegex(p)
		if err != nil {
			return nil, errorf(e, "%v", err)
		}
		ps.fixed = r
	}
	return ps, nil
}

func (ps *patterns) at(v *vec, i int) *regex {
	if ps.fixed != nil {
		return ps.fixed
	}
	p := v.str(i)
	if ps.cur == nil && !ps.bad || string(p) != ps.last {
		ps.last = string(p)
		var err error
		ps.cur, err = compileRegex(ps.last)
		ps.bad = err != nil
	}
	return ps.cur
}

func (c *compiler) regexpMatch(e *Call) (*node, error) {
	kids, err := c.strArgs(e, 2, 2)
	if err != nil {
		return nil, err
	}
	nd, err := strNode(e, types.Boolean, kids)
	if err != nil {
		return nil, err
	}
	ps, err := c.patternArg(e, 1)
	if err != nil {
		return nil, err
	}
	nd.kern = func(rows int, act []uint64) error {
		bits := nd.outBits(rows)
		fill(bits, 0)
		for i := 0; i < rows; i++ {
			if !nd.live(i, act) {
				continue
			}
			// Flink: an empty or a bad pattern matches nothing.
			if r := ps.at(nd.in[1], i); r != nil && len(nd.in[1].str(i)) > 0 && r.match(nd.in[0].str(i)) {
				bits[i>>6] |= 1 << (uint(i) & 63)
			}
		}
		return nil
	}
	return nd, nil
}

func (c *compiler) regexpExtract(e *Call) (*node, error) {
	if err := arity(e, 2, 3); err != nil {
		return nil, err
	}
	kids, err := c.strArgs(&Call{Fn: e.Fn, Args: e.Args[:2], T: e.T}, 2, 2)
	if err != nil {
		return nil, err
	}
	var group *node
	if len(e.Args) == 3 {
		if group, err = c.typed(e, e.Args[2], types.TInt, types.Type.IsIntegral); err != nil {
			return nil, err
		}
		kids = append(kids, group)
	}
	nd, err := strNode(e, types.String, kids)
	if err != nil {
		return nil, err
	}
	ps, err := c.patternArg(e, 1)
	if err != nil {
		return nil, err
	}
	nd.kern = strKern(nd, func(d []byte, in []*vec, i int) ([]byte, bool) {
		r := ps.at(in[1], i)
		if r == nil {
			return d, false
		}
		g := int64(0)
		if group != nil {
			g = intAt(in[2], group.p, i)
		}
		s := in[0].str(i)
		m := r.submatch(s)
		if m == nil || g < 0 || int(g) > r.re.NumSubexp() || m[2*g] < 0 {
			return d, false // no match, no such group, or the group took no part
		}
		return append(d, s[m[2*g]:m[2*g+1]]...), true
	})
	return nd, nil
}

// template is a Java replacement string: literal text, $n and ${name}
// group references, and \ escaping the next character.
type template struct {
	lits   [][]byte
	groups []int // after lits[k], group groups[k]; -1 for none
}

func parseTemplate(t []byte, re *regexp.Regexp) (*template, error) {
	tp := &template{}
	var lit []byte
	for i := 0; i < len(t); i++ {
		switch c := t[i]; c {
		case '\\':
			i++
			if i == len(t) {
				return nil, fmt.Errorf("character to be escaped is missing in replacement %q", t)
			}
			lit = append(lit, t[i])
		case '$':
			i++
			if i == len(t) {
				return nil, fmt.Errorf("illegal group reference: group index is missing in replacement %q", t)
			}
			g := -1
			if t[i] == '{' {
				end := bytes.IndexByte(t[i:], '}')
				if end < 0 {
					return nil, fmt.Errorf("named capturing group is missing trailing '}' in replacement %q", t)
				}
				name := string(t[i+1 : i+end])
				if g = re.SubexpIndex(name); g < 0 {
					return nil, fmt.Errorf("no group with name {%s} in replacement %q", name, t)
				}
				i += end
			} else {
				if t[i] < '0' || t[i] > '9' {
					return nil, fmt.Errorf("illegal group reference in replacement %q", t)
				}
				// Java takes more digits only while they name a group.
				g = int(t[i] - '0')
				for i+1 < len(t) && t[i+1] >= '0' && t[i+1] <= '9' && g*10+int(t[i+1]-'0') <= re.NumSubexp() {
					i++
					g = g*10 + int(t[i]-'0')
				}
				if g > re.NumSubexp() {
					return nil, fmt.Errorf("no group %d in replacement %q", g, t)
				}
			}
			tp.lits = append(tp.lits, lit)
			tp.groups = append(tp.groups, g)
			lit = nil
		default:
			lit = append(lit, c)
		}
	}
	tp.lits = append(tp.lits, lit)
	tp.groups = append(tp.groups, -1)
	return tp, nil
}

func (tp *template) expand(d, s []byte, m []int) []byte {
	for k, l := range tp.lits {
		d = append(d, l...)
		if g := tp.groups[k]; g >= 0 && m[2*g] >= 0 {
			d = append(d, s[m[2*g]:m[2*g+1]]...)
		}
	}
	return d
}

func (c *compiler) regexpReplace(e *Call) (*node, error) {
	kids, err := c.strArgs(e, 3, 3)
	if err != nil {
		return nil, err
	}
	nd, err := strNode(e, types.String, kids)
	if err != nil {
		return nil, err
	}
	ps, err := c.patternArg(e, 1)
	if err != nil {
		return nil, err
	}
	var fixed *template
	if t, ok := litString(e.Args[2]); ok && ps.fixed != nil {
		if fixed, err = parseTemplate([]byte(t), ps.fixed.re); err != nil {
			return nil, errorf(e, "%v", err)
		}
	}
	nd.kern = strKern(nd, func(d []byte, in []*vec, i int) ([]byte, bool) {
		r := ps.at(in[1], i)
		if r == nil {
			return d, false
		}
		tp := fixed
		if tp == nil {
			var err error
			if tp, err = parseTemplate(in[2].str(i), r.re); err != nil {
				return d, false // Flink gives NULL for a bad replacement
			}
		}
		s := in[0].str(i)
		if len(r.must) > 0 && !bytes.Contains(s, r.must) {
			return append(d, s...), true
		}
		last := 0
		for _, m := range r.re.FindAllSubmatchIndex(s, -1) {
			d = append(d, s[last:m[0]]...)
			d = tp.expand(d, s, m)
			last = m[1]
		}
		return append(d, s[last:]...), true
	})
	return nd, nil
}

// match reports whether r matches somewhere in s.
func (r *regex) match(s []byte) bool {
	if len(r.must) > 0 && !bytes.Contains(s, r.must) {
		return false
	}
	if r.simple != nil {
		return r.submatch(s) != nil
	}
	return r.re.Match(s)
}
