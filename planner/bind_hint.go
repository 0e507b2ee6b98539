package planner

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/strandsql/strand/exec/connector"
	"github.com/strandsql/strand/parser"
)

// ErrHint is the kind of an error in a hint strand has: a UID or OPTIONS
// hint with bad arguments, or where it cannot apply (a UID on a SELECT
// without one stateful operator, or taken twice; OPTIONS on a view).
var ErrHint = errors.New("invalid hint")

// derivedPrefixes begin the uids strand derives (UID, and the sources'
// and sinks'): a hint may not take one, so it never collides with them.
var derivedPrefixes = []string{"window-", "topn-", "rank-", "join-", "groupagg-", "over-", "normalize-", "materialize-", "session-", "source-", "sink-"}

// uidHint is a /*+ UID('name') */ of a SELECT.
type uidHint struct {
	name string
	at   parser.Pos // of the hint
}

// queryHints checks the hints after a SELECT and returns its UID hint and
// its STATE_TTL hint, or nil. They are the query hints strand has; every
// other is refused, so that none is silently ignored.
func queryHints(q *parser.Select) (*uidHint, *stateTTLHint, error) {
	var uid *uidHint
	var ttl *stateTTLHint
	for _, h := range q.Hints {
		switch h.Name {
		case "UID":
		case "STATE_TTL":
			if ttl != nil {
				return nil, nil, errorf(h.Start, ErrHint, "a SELECT takes one STATE_TTL hint; another is at %s", ttl.at)
			}
			var err error
			if ttl, err = parseStateTTL(h); err != nil {
				return nil, nil, err
			}
			continue
		default:
			return nil, nil, errorf(h.Start, ErrUnsupported, "hint %s is not supported yet", h.Name)
		}
		if uid != nil {
			return nil, nil, errorf(h.Start, ErrHint, "a SELECT takes one UID hint; another is at %s", uid.at)
		}
		name, err := uidValue(h)
		if err != nil {
			return nil, nil, err
		}
		uid = &uidHint{name: name, at: h.Start}
	}
	return uid, ttl, nil
}

// uidValue reads the one option of a UID hint: a non-empty string of
// letters, digits, _, - and ., which names state across runs.
func uidValue(h *parser.Hint) (string, error) {
	const form = "UID takes one string of letters, digits, '_', '-' and '.', as in /*+ UID('per_user_counts') */"
	if len(h.Options) != 1 {
		return "", errorf(h.Start, ErrHint, "%s", form)
	}
	o := h.Options[0]
	s, ok := o.Value.(*parser.StringLit)
	if !ok || o.Key != nil || s.Value == "" {
		return "", errorf(o.Start, ErrHint, "%s", form)
	}
	for _, r := range s.Value {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-' || r == '.') {
			return "", errorf(o.Start, ErrHint, "UID '%s' holds %q: %s", s.Value, r, form)
		}
	}
	for _, p := range derivedPrefixes {
		if strings.HasPrefix(s.Value, p) {
			return "", errorf(o.Start, ErrHint, "UID '%s' begins with '%s', as the uids strand derives do; choose another name", s.Value, p)
		}
	}
	return s.Value, nil
}

// tableOptions checks the hints after a table name and returns the
// options its OPTIONS hints give, as WITH options with their positions, or
// nil. OPTIONS is the only table hint strand has.
func tableOptions(hints []*parser.Hint) ([]*parser.Option, error) {
	var opts []*parser.Option
	for _, h := range hints {
		switch h.Name {
		case "OPTIONS":
		case "UID":
			return nil, errorf(h.Start, ErrHint, "UID is a query hint: write it right after the SELECT that defines the operator")
		default:
			return nil, errorf(h.Start, ErrUnsupported, "hint %s is not supported yet", h.Name)
		}
		if len(h.Options) == 0 {
			return nil, errorf(h.Start, ErrHint, "OPTIONS takes 'key' = 'value' pairs, as in /*+ OPTIONS('path' = 'data/other.csv') */")
		}
		for _, o := range h.Options {
			v, ok := o.Value.(*parser.StringLit)
			if !ok || o.Key == nil {
				return nil, errorf(o.Start, ErrHint, "OPTIONS takes 'key' = 'value' pairs, as in /*+ OPTIONS('path' = 'data/other.csv') */")
			}
			var key string
			switch k := o.Key.(type) {
			case *parser.StringLit:
				key = k.Value
			case *parser.Ident:
				key = identName(k)
			}
			opts = append(opts, &parser.Option{Start: o.Start, Key: key, Value: v.Value, ValuePos: v.Start})
		}
	}
	return opts, nil
}

// withOptions is t with opts overriding its WITH options, for the one
// reference they follow, as Flink's dynamic table options: checked for
// reading (asSource) or writing. Later options win over earlier ones.
func withOptions(t *Table, opts []*parser.Option, asSource bool) (*Table, error) {
	c := *t
	c.Options = maps.Clone(t.Options)
	for _, o := range opts {
		c.Options[o.Key] = o.Value
	}
	c.Hinted = append(slices.Clone(t.Hinted), opts...)
	ct := c.Sink()
	if asSource {
		ct = c.Source()
	}
	if err := connector.Validate(ct, asSource); err != nil {
		return nil, optionError(&c, err)
	}
	return &c, nil
}

// hintedOptionError places a connector's error about an option a hint set
// on that hint's option, in the statement's text, or returns nil.
func hintedOptionError(t *Table, err error) error {
	var oe *connector.OptionError
	if !errors.As(err, &oe) {
		return nil
	}
	for _, o := range slices.Backward(t.Hinted) {
		if o.Key != oe.Key {
			continue
		}
		pos := o.Start
		if oe.AtValue {
			pos = o.ValuePos
		}
		return &Error{Pos: pos, Kind: ErrOption, Msg: err.Error()}
	}
	return nil
}

// hintedRef binds a table reference with its table hints.
func (b *binder) hintedRef(t *parser.TableRef) (*relation, error) {
	opts, err := tableOptions(t.Hints)
	if err != nil {
		return nil, err
	}
	r, err := b.named(t.Name)
	if err != nil || opts == nil {
		return r, err
	}
	scan, ok := r.node.(*Scan)
	if !ok {
		return nil, errorf(t.Hints[0].Start, ErrHint, "OPTIONS overrides the WITH options of a table, and '%s' is a view or WITH query", identName(t.Name))
	}
	tab, err := withOptions(scan.Table, opts, true)
	if err != nil {
		return nil, err
	}
	return &relation{node: &Scan{Table: tab, At: scan.At}, scope: r.scope}, nil
}

// checkHints checks the hints of q and the queries within it without
// binding them, for WITH queries that nothing reads and so are never
// bound.
func checkHints(q parser.Query) error {
	var err error
	parser.Inspect(q, func(n parser.Node) bool {
		switch n := n.(type) {
		case *parser.Select:
			_, _, err = queryHints(n)
		case *parser.TableRef:
			_, err = tableOptions(n.Hints)
		}
		return err == nil
	})
	return err
}

// stateful is a stateful operator a SELECT defines, as the binder builds it.
type stateful struct {
	node Node // *WindowAgg, *TopN, *Rank or *Join
	what string
}

// defines records that the SELECT being bound defines n.
func (b *binder) defines(n Node) {
	what := "a window aggregate"
	switch n.(type) {
	case *TopN:
		what = "a window Top-N"
	case *Rank:
		what = "a Top-N"
	case *Join:
		what = "a join"
	case *GroupAgg:
		what = "a group aggregate"
	case *Over:
		what = "an OVER aggregation"
	}
	b.made = append(b.made, stateful{n, what})
}

// nameOperator gives the one stateful operator of a SELECT the name of its
// UID hint, which no other operator of the statement may have.
func (b *binder) nameOperator(uid *uidHint) error {
	switch len(b.made) {
	case 0:
		return errorf(uid.at, ErrHint, "UID names a stateful operator, and this SELECT defines none: write it after the SELECT with the window's GROUP BY, the ORDER BY ... LIMIT, or the WHERE rownum <= N")
	case 1:
	default:
		return errorf(uid.at, ErrHint, "this SELECT defines %s and %s, and UID names one operator: move the GROUP BY into a subquery, and name each operator on its own SELECT", b.made[0].what, b.made[1].what)
	}
	if at, ok := b.uids[uid.name]; ok {
		return errorf(uid.at, ErrHint, "UID '%s' is already given to another operator at %s; uids name state and must differ", uid.name, at)
	}
	if b.uids == nil {
		b.uids = map[string]parser.Pos{}
	}
	b.uids[uid.name] = uid.at
	setUIDHint(b.made[0].node, uid.name)
	return nil
}

// distinctUIDs refuses a plan in which two stateful operators have one
// uid, which would give both the same state on restore. Hinted uids are
// checked as they are bound; this catches derived ones, which two
// operators doing the same thing to the same columns share. Two
// operators whose whole subtrees are alike (Nexmark q5 counts bids per
// auction and window twice, in two subqueries) hold equal state, so the
// later ones are told apart by a suffix (-2, -3, ...) in plan order
// instead: whichever of them a restore maps a state to, it is the same
// state.
func distinctUIDs(root Node, at parser.Pos) error {
	var seen []Node
	var err error
	var walk func(Node)
	walk = func(n Node) {
		if uid := UID(n); uid != "" && err == nil {
			same := 1
			for _, m := range seen {
				if UID(m) != uid && !strings.HasPrefix(UID(m), uid+"-") {
					continue
				}
				if Explain(m) != Explain(n) {
					err = errorf(at, ErrHint, "two stateful operators of this statement have the uid %s; name one with /*+ UID('...') */ after its SELECT", uid)
					return
				}
				same++
			}
			if same > 1 {
				setUIDHint(n, fmt.Sprintf("%s-%d", uid, same))
			}
			seen = append(seen, n)
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(root)
	return err
}

// setUIDHint gives the stateful operator n the uid uid.
func setUIDHint(n Node, uid string) {
	switch n := n.(type) {
	case *WindowAgg:
		n.UIDHint = uid
	case *TopN:
		n.UIDHint = uid
	case *Rank:
		n.UIDHint = uid
	case *Join:
		n.UIDHint = uid
	case *GroupAgg:
		n.UIDHint = uid
	case *Over:
		n.UIDHint = uid
	case *WindowTVF:
		n.UIDHint = uid
	default:
		panic(fmt.Sprintf("planner: %T has no uid", n))
	}
}
