package expr

import (
	"regexp/syntax"
	"unicode/utf8"
)

// A simple matcher runs the patterns that most field extractions use, a
// concatenation of literals, character classes, repetitions of one class,
// anchors, groups and alternations of those (channel_id=([^&]*),
// (&|^)id=(\d+)), without the general engine: a repetition takes as much
// as it can and never gives back, which is exact when what follows it
// cannot start with a character it takes (checked when compiled); an
// alternation tries its branches in order. Go's engine costs about a
// microsecond per search even on short strings; this costs a few
// nanoseconds per byte. Patterns outside that shape use the engine.

// sitem is an item of a simple pattern as parsed, before linking.
type sitem struct {
	op    syntax.Op
	lit   []rune         // OpLiteral
	class *syntax.Regexp // one-character item, or the item repeated
	min   int            // repetition bounds; max -1 for no bound
	max   int
	cap   int       // OpCapture: the group number
	sub   []sitem   // OpCapture: its items
	alts  [][]sitem // OpAlternate
}

type simple struct {
	start *snode
	ncap  int
}

// snode is a compiled item, linked to the one that follows it, so that a
// match walks the pattern without building continuations: a group is a
// start node, its items and an end node; each branch of an alternation
// ends in what follows the alternation. nil ends the pattern.
type snode struct {
	op    syntax.Op // OpCapture starts a group, OpNoMatch ends one
	lit   []rune
	class *syntax.Regexp
	min   int
	max   int
	cap   int
	alts  []*snode
	next  *snode
}

// compileSimple returns a simple matcher for t, or nil if t is not of the
// simple shape.
func compileSimple(t *syntax.Regexp, ncap int) *simple {
	items, ok := simpleItems([]*syntax.Regexp{t})
	if !ok || !safeRepeats(items, nil) || ncap > 15 {
		return nil
	}
	return &simple{start: link(items, nil), ncap: ncap}
}

// link chains items before next.
func link(items []sitem, next *snode) *snode {
	for k := len(items) - 1; k >= 0; k-- {
		it := items[k]
		switch it.op {
		case syntax.OpCapture:
			end := &snode{op: syntax.OpNoMatch, cap: it.cap, next: next}
			next = &snode{op: syntax.OpCapture, cap: it.cap, next: link(it.sub, end)}
		case syntax.OpAlternate:
			n := &snode{op: syntax.OpAlternate}
			for _, a := range it.alts {
				n.alts = append(n.alts, link(a, next))
			}
			next = n
		default:
			next = &snode{op: it.op, lit: it.lit, class: it.class, min: it.min, max: it.max, next: next}
		}
	}
	return next
}

func simpleItems(ts []*syntax.Regexp) ([]sitem, bool) {
	var out []sitem
	for _, t := range ts {
		if t.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		switch t.Op {
		case syntax.OpConcat:
			sub, ok := simpleItems(t.Sub)
			if !ok {
				return nil, false
			}
			out = append(out, sub...)
		case syntax.OpLiteral:
			out = append(out, sitem{op: t.Op, lit: t.Rune})
		case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			out = append(out, sitem{op: syntax.OpCharClass, class: t})
		case syntax.OpBeginText, syntax.OpEndText, syntax.OpEmptyMatch:
			out = append(out, sitem{op: t.Op})
		case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
			s := t.Sub[0]
			if t.Flags&syntax.NonGreedy != 0 || !oneChar(s) {
				return nil, false
			}
			it := sitem{op: syntax.OpRepeat, class: s, min: t.Min, max: t.Max}
			switch t.Op {
			case syntax.OpStar:
				it.min, it.max = 0, -1
			case syntax.OpPlus:
				it.min, it.max = 1, -1
			case syntax.OpQuest:
				it.min, it.max = 0, 1
			}
			out = append(out, it)
		case syntax.OpCapture:
			sub, ok := simpleItems(t.Sub)
			if !ok {
				return nil, false
			}
			out = append(out, sitem{op: t.Op, cap: t.Cap, sub: sub})
		case syntax.OpAlternate:
			it := sitem{op: t.Op}
			for _, a := range t.Sub {
				sub, ok := simpleItems([]*syntax.Regexp{a})
				if !ok {
					return nil, false
				}
				it.alts = append(it.alts, sub)
			}
			out = append(out, it)
		default:
			return nil, false
		}
	}
	return out, true
}

func oneChar(t *syntax.Regexp) bool {
	switch t.Op {
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return t.Flags&syntax.FoldCase == 0
	case syntax.OpLiteral:
		return len(t.Rune) == 1 && t.Flags&syntax.FoldCase == 0
	}
	return false
}

// safeRepeats checks that every repetition in items is followed (within
// items, then within after) by a literal or class it cannot take, or by
// the end of the pattern.
func safeRepeats(items []sitem, after []sitem) bool {
	for k, it := range items {
		rest := append(append([]sitem{}, items[k+1:]...), after...)
		switch it.op {
		case syntax.OpRepeat:
			if it.min == it.max {
				continue // a fixed count has nothing to give back
			}
			if !stops(it.class, rest) {
				return false
			}
		case syntax.OpCapture:
			if !safeRepeats(it.sub, rest) {
				return false
			}
		case syntax.OpAlternate:
			for _, a := range it.alts {
				if !safeRepeats(a, rest) {
					return false
				}
			}
		}
	}
	return true
}

// stops reports whether the first character rest can take is never one
// that class takes: rest begins with a literal or a class disjoint from
// it, or is empty (the end of the pattern, where taking more is what
// leftmost-first prefers anyway).
func stops(class *syntax.Regexp, rest []sitem) bool {
	for _, it := range rest {
		switch it.op {
		case syntax.OpCapture:
			return stops(class, append(append([]sitem{}, it.sub...), rest[1:]...))
		case syntax.OpLiteral:
			return !takes(class, it.lit[0])
		case syntax.OpCharClass:
			return disjoint(class, it.class)
		case syntax.OpEndText:
			return true
		}
		return false
	}
	return true
}

func takes(t *syntax.Regexp, r rune) bool {
	switch t.Op {
	case syntax.OpLiteral:
		return t.Rune[0] == r
	case syntax.OpAnyChar:
		return true
	case syntax.OpAnyCharNotNL:
		return r != '\n'
	}
	for i := 0; i < len(t.Rune); i += 2 {
		if t.Rune[i] <= r && r <= t.Rune[i+1] {
			return true
		}
	}
	return false
}

func disjoint(a, b *syntax.Regexp) bool {
	if b.Op != syntax.OpCharClass {
		return b.Op == syntax.OpLiteral && !takes(a, b.Rune[0])
	}
	if a.Op == syntax.OpAnyChar || a.Op == syntax.OpAnyCharNotNL {
		return false
	}
	if a.Op == syntax.OpLiteral {
		return !takes(b, a.Rune[0])
	}
	for i := 0; i < len(a.Rune); i += 2 {
		for j := 0; j < len(b.Rune); j += 2 {
			if a.Rune[i] <= b.Rune[j+1] && b.Rune[j] <= a.Rune[i+1] {
				return false
			}
		}
	}
	return true
}

// find returns the submatch indexes of the leftmost match at or after
// from, as regexp's FindSubmatchIndex, or nil.
func (m *simple) find(s []byte, from int) []int {
	var buf [32]int
	caps := buf[:2*m.ncap+2]
	for start := from; start <= len(s); start++ {
		for i := range caps {
			caps[i] = -1
		}
		if end, ok := m.match(s, start, m.start, caps); ok {
			caps[0], caps[1] = start, end
			return append([]int(nil), caps...)
		}
	}
	return nil
}

// match matches the pattern from node n at s[i:], giving the end.
func (m *simple) match(s []byte, i int, n *snode, caps []int) (int, bool) {
	for ; n != nil; n = n.next {
		switch n.op {
		case syntax.OpLiteral:
			for _, r := range n.lit {
				c, w := decode(s, i)
				if w == 0 || c != r {
					return 0, false
				}
				i += w
			}
		case syntax.OpCharClass:
			c, w := decode(s, i)
			if w == 0 || !takes(n.class, c) {
				return 0, false
			}
			i += w
		case syntax.OpRepeat:
			k := 0
			for n.max < 0 || k < n.max {
				c, w := decode(s, i)
				if w == 0 || !takes(n.class, c) {
					break
				}
				i += w
				k++
			}
			if k < n.min {
				return 0, false
			}
		case syntax.OpBeginText:
			if i != 0 {
				return 0, false
			}
		case syntax.OpEndText:
			if i != len(s) {
				return 0, false
			}
		case syntax.OpCapture:
			caps[2*n.cap] = i
		case syntax.OpNoMatch:
			caps[2*n.cap+1] = i
		case syntax.OpAlternate:
			var buf [32]int
			saved := buf[:len(caps)]
			copy(saved, caps)
			for _, a := range n.alts {
				if end, ok := m.match(s, i, a, caps); ok {
					return end, true
				}
				copy(caps, saved)
			}
			return 0, false
		}
	}
	return i, true
}

func decode(s []byte, i int) (rune, int) {
	if i >= len(s) {
		return 0, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRune(s[i:])
}
