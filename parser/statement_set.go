package parser

import "strings"

// StatementSet is EXECUTE STATEMENT SET BEGIN insert; ... END, or Flink's
// older BEGIN STATEMENT SET; insert; ... END: INSERTs that run as one job.
// EXPLAIN takes it as STATEMENT SET BEGIN ... END too (Explain set).
type StatementSet struct {
	Start   Pos
	Inserts []*Insert
	// Legacy marks the BEGIN STATEMENT SET; form, which String keeps.
	Legacy bool
}

func (n *StatementSet) Pos() Pos { return n.Start }
func (*StatementSet) statement() {}

func (n *StatementSet) String() string {
	var b strings.Builder
	if n.Legacy {
		b.WriteString("BEGIN STATEMENT SET;")
	} else {
		b.WriteString("EXECUTE STATEMENT SET BEGIN")
	}
	for _, ins := range n.Inserts {
		b.WriteString(" " + ins.String() + ";")
	}
	b.WriteString(" END")
	return b.String()
}

// isStatementSet reports whether EXECUTE STATEMENT SET or BEGIN STATEMENT
// SET starts at the current token.
func (p *parser) isStatementSet() bool {
	t := p.peek()
	return (isWord(t, "EXECUTE") || isWord(t, "BEGIN")) && isWord(p.peekAt(1), "STATEMENT") && isWord(p.peekAt(2), "SET")
}

// statementSet parses a statement set from its first word: EXECUTE
// STATEMENT SET BEGIN, BEGIN STATEMENT SET ;, or (after EXPLAIN)
// STATEMENT SET BEGIN; then INSERTs, each ended by a semicolon, and END.
func (p *parser) statementSet() (Statement, error) {
	start := p.peek().pos
	set := &StatementSet{Start: start}
	switch {
	case p.acceptKw("BEGIN"):
		set.Legacy = true
		p.next() // STATEMENT
		p.next() // SET
		if _, err := p.expectOp(";"); err != nil {
			return nil, err
		}
	default:
		p.acceptKw("EXECUTE")
		for _, kw := range []string{"STATEMENT", "SET", "BEGIN"} {
			if _, err := p.expectKw(kw); err != nil {
				return nil, err
			}
		}
	}
	for {
		for isOp(p.peek(), ";") {
			p.next()
		}
		if p.acceptKw("END") {
			break
		}
		t := p.peek()
		if !p.isKw("INSERT") {
			if t.kind == tkEOF {
				return nil, errorf(t.pos, "the statement set that starts at %s has no END", start)
			}
			if p.isStatementSet() {
				return nil, errorf(t.pos, "a statement set cannot hold another one")
			}
			if t.kind == tkWord || p.isQueryStart() {
				return nil, errorf(t.pos, "a statement set holds only INSERT statements, found %s", describe(t))
			}
			return nil, p.unexpected()
		}
		st, err := p.insert()
		if err != nil {
			return nil, err
		}
		set.Inserts = append(set.Inserts, st.(*Insert))
		if !isOp(p.peek(), ";") {
			p.want("';' after the INSERT")
			return nil, p.unexpected()
		}
	}
	if len(set.Inserts) == 0 {
		return nil, errorf(start, "a statement set needs at least one INSERT before END")
	}
	return set, nil
}
