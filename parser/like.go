package parser

import (
	"slices"
	"strings"
)

// TableLike is the LIKE clause of CREATE TABLE: LIKE source [(option,
// ...)], each option a merging strategy for a feature of the source
// table, as Flink has it (FLIP-110):
//
//	{ INCLUDING | EXCLUDING } { ALL | CONSTRAINTS | PARTITIONS }
//	{ INCLUDING | EXCLUDING | OVERWRITING } { GENERATED | OPTIONS | WATERMARKS | METADATA }
type TableLike struct {
	Start   Pos
	Source  *Ident
	Options []*LikeOption
}

// LikeOption is one merging strategy of a LIKE clause: Strategy is
// INCLUDING, EXCLUDING or OVERWRITING, Feature the feature it applies to.
type LikeOption struct {
	Start             Pos
	Strategy, Feature string
}

func (n *TableLike) Pos() Pos  { return n.Start }
func (n *LikeOption) Pos() Pos { return n.Start }

func (n *TableLike) String() string {
	s := "LIKE " + n.Source.String()
	if len(n.Options) > 0 {
		opts := make([]string, len(n.Options))
		for i, o := range n.Options {
			opts[i] = o.String()
		}
		s += " (" + strings.Join(opts, " ") + ")"
	}
	return s
}

func (n *LikeOption) String() string { return n.Strategy + " " + n.Feature }

// likeFeatures are the features a LIKE option names; overwritable those
// that OVERWRITING may apply to (a table has one set of constraints and
// of partitions: they are taken or not).
var (
	likeFeatures = []string{"ALL", "CONSTRAINTS", "GENERATED", "METADATA", "OPTIONS", "PARTITIONS", "WATERMARKS"}
	overwritable = setOf("GENERATED", "METADATA", "OPTIONS", "WATERMARKS")
)

// tableLike parses LIKE source [(options)], LIKE being the current token.
// The options are separated by blanks, as Flink writes them, or commas.
func (p *parser) tableLike() (*TableLike, error) {
	l := &TableLike{Start: p.next().pos}
	var err error
	if l.Source, err = p.name(); err != nil {
		return nil, err
	}
	if !p.acceptOp("(") {
		return l, nil
	}
	for {
		t := p.peek()
		if !p.isKw("INCLUDING") && !p.isKw("EXCLUDING") && !p.isKw("OVERWRITING") {
			return nil, p.unexpected()
		}
		p.next()
		o := &LikeOption{Start: t.pos, Strategy: upper(t.text)}
		f := p.peek()
		for _, kw := range likeFeatures {
			p.want(kw)
		}
		if f.kind != tkWord || !slices.Contains(likeFeatures, upper(f.text)) {
			return nil, p.unexpected()
		}
		p.next()
		o.Feature = upper(f.text)
		if o.Strategy == "OVERWRITING" && !overwritable[o.Feature] {
			return nil, errorf(t.pos, "OVERWRITING does not apply to %s, only to GENERATED, METADATA, OPTIONS and WATERMARKS; use INCLUDING or EXCLUDING", o.Feature)
		}
		for _, prev := range l.Options {
			if prev.Feature == o.Feature {
				return nil, errorf(t.pos, "a LIKE clause sets the strategy for %s more than once", o.Feature)
			}
		}
		l.Options = append(l.Options, o)
		// Flink separates the options by blanks; a comma is taken too.
		if !p.acceptOp(",") && !p.isKw("INCLUDING") && !p.isKw("EXCLUDING") && !p.isKw("OVERWRITING") {
			break
		}
	}
	if _, err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return l, nil
}
