package planner

import (
	"errors"
	"slices"
	"strings"

	"github.com/strandsql/strand/parser"
)

// ErrHint is the kind of an error in a hint strand knows: a UID hint with
// a bad value, or one that names no operator or one named before.
var ErrHint = errors.New("invalid hint")

// derivedPrefixes begin the uids strand derives (UID, and the sources'
// and sinks'): a hint may not take one, so it never collides with them.
var derivedPrefixes = []string{"window-", "topn-", "source-", "sink-"}

// uidHint is a /*+ UID('name') */ of a SELECT.
type uidHint struct {
	name string
	at   parser.Pos // of the hint
}

// queryHints checks the hints after a SELECT and returns its UID hint, or
// nil. UID is the only query hint strand has; every other is refused, so
// that none is silently ignored.
func queryHints(q *parser.Select) (*uidHint, error) {
	var uid *uidHint
	for _, h := range q.Hints {
		if h.Name != "UID" {
			return nil, errorf(h.Start, ErrUnsupported, "hint %s is not supported yet", h.Name)
		}
		if uid != nil {
			return nil, errorf(h.Start, ErrHint, "a SELECT takes one UID hint; another is at %s", uid.at)
		}
		name, err := uidValue(h)
		if err != nil {
			return nil, err
		}
		uid = &uidHint{name: name, at: h.Start}
	}
	return uid, nil
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

// tableHints refuses the hints after a table name: strand has none yet.
// OPTIONS would override the table's WITH options for this one reference.
func tableHints(hints []*parser.Hint) error {
	for _, h := range hints {
		if h.Name == "UID" {
			return errorf(h.Start, ErrHint, "UID is a query hint: write it right after the SELECT that defines the operator")
		}
		return errorf(h.Start, ErrUnsupported, "hint %s is not supported yet", h.Name)
	}
	return nil
}

// checkHints checks the hints of q and the queries within it without
// binding them, for WITH queries that nothing reads and so are never
// bound.
func checkHints(q parser.Query) error {
	var err error
	parser.Inspect(q, func(n parser.Node) bool {
		switch n := n.(type) {
		case *parser.Select:
			_, err = queryHints(n)
		case *parser.TableRef:
			err = tableHints(n.Hints)
		}
		return err == nil
	})
	return err
}

// stateful is a stateful operator a SELECT defines, as the binder builds it.
type stateful struct {
	node Node // *WindowAgg or *TopN
	what string
}

// defines records that the SELECT being bound defines n.
func (b *binder) defines(n Node) {
	what := "a window aggregate"
	if _, ok := n.(*TopN); ok {
		what = "a window Top-N"
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
	switch n := b.made[0].node.(type) {
	case *WindowAgg:
		n.UIDHint = uid.name
	case *TopN:
		n.UIDHint = uid.name
	}
	return nil
}

// distinctUIDs refuses a plan in which two stateful operators have one
// uid, which would give both the same state on restore. Hinted uids are
// checked as they are bound; this catches derived ones, which two
// operators doing the same thing to the same columns share.
func distinctUIDs(root Node, at parser.Pos) error {
	uids := StatefulUIDs(root)
	for i, uid := range uids {
		if slices.Contains(uids[:i], uid) {
			return errorf(at, ErrHint, "two stateful operators of this statement have the uid %s; name one with /*+ UID('...') */ after its SELECT", uid)
		}
	}
	return nil
}
