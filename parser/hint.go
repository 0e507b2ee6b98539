package parser

// hints parses the /*+ ... */ blocks at the current token, if any, into
// one list: several blocks read as one.
func (p *parser) hints() ([]*Hint, error) {
	var out []*Hint
	for p.peek().kind == tkHint {
		sub := &parser{toks: p.next().sub, expAt: -1, implicitAlias: -1}
		for {
			h, err := sub.hint()
			if err != nil {
				return nil, err
			}
			out = append(out, h)
			if !sub.acceptOp(",") {
				break
			}
		}
		if sub.peek().kind != tkEOF {
			sub.want(quote("*/"))
			return nil, sub.unexpected()
		}
	}
	return out, nil
}

// hint parses NAME [( [option, ...] )]. NAME() reads as NAME.
func (p *parser) hint() (*Hint, error) {
	t := p.peek()
	p.want("hint name")
	if t.kind != tkQuoted && (t.kind != tkWord || reserved[upper(t.text)]) {
		return nil, p.unexpected()
	}
	p.next()
	name := t.text
	if t.kind == tkQuoted {
		name = t.val
	}
	h := &Hint{Start: t.pos, Name: upper(name)}
	if !p.acceptOp("(") || p.acceptOp(")") {
		return h, nil
	}
	for {
		o, err := p.hintOption()
		if err != nil {
			return nil, err
		}
		h.Options = append(h.Options, o)
		if !p.acceptOp(",") {
			break
		}
	}
	_, err := p.expectOp(")")
	return h, err
}

// hintOption parses a name, a string or a number, or key = 'value' where
// the key is a name or a string, as Calcite does.
func (p *parser) hintOption() (*HintOption, error) {
	t := p.peek()
	o := &HintOption{Start: t.pos}
	p.want("string")
	p.want("number")
	switch t.kind {
	case tkString:
		p.next()
		o.Value = &StringLit{Start: t.pos, Value: t.val}
	case tkNumber:
		p.next()
		o.Value = &NumberLit{Start: t.pos, Text: t.text}
		return o, nil
	default:
		id, err := p.simpleIdent()
		if err != nil {
			return nil, err
		}
		o.Value = id
	}
	if p.acceptOp("=") {
		v, err := p.stringLit()
		if err != nil {
			return nil, err
		}
		o.Key, o.Value = o.Value, v
	}
	return o, nil
}
