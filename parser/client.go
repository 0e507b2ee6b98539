package parser

// The SQL client's own statements: HELP, SOURCE 'file', SHOW FUNCTIONS and
// SHOW CREATE TABLE|VIEW name, as Flink's SQL client has them (SOURCE from
// its earlier versions).

// Help is HELP: the statements and the REPL's keys.
type Help struct{ Start Pos }

// Source is SOURCE 'file.sql': run the statements of a file.
type Source struct {
	Start Pos
	Path  *StringLit
}

// ShowFunctions is SHOW FUNCTIONS: the functions a query may call.
type ShowFunctions struct{ Start Pos }

// ShowCreate is SHOW CREATE TABLE name or SHOW CREATE VIEW name.
type ShowCreate struct {
	Start Pos
	View  bool
	Name  *Ident
}

func (n *Help) Pos() Pos          { return n.Start }
func (n *Source) Pos() Pos        { return n.Start }
func (n *ShowFunctions) Pos() Pos { return n.Start }
func (n *ShowCreate) Pos() Pos    { return n.Start }
func (*Help) statement()          {}
func (*Source) statement()        {}
func (*ShowFunctions) statement() {}
func (*ShowCreate) statement()    {}

func (n *Help) String() string          { return "HELP" }
func (n *Source) String() string        { return "SOURCE " + n.Path.String() }
func (n *ShowFunctions) String() string { return "SHOW FUNCTIONS" }

func (n *ShowCreate) String() string {
	if n.View {
		return "SHOW CREATE VIEW " + n.Name.String()
	}
	return "SHOW CREATE TABLE " + n.Name.String()
}

// source parses SOURCE 'file'.
func (p *parser) source() (Statement, error) {
	st := &Source{Start: p.next().pos}
	path, err := p.stringLit()
	if err != nil {
		return nil, err
	}
	st.Path = path
	return st, nil
}

// showCreate parses TABLE name or VIEW name after SHOW CREATE.
func (p *parser) showCreate(start Pos) (Statement, error) {
	st := &ShowCreate{Start: start}
	if !p.acceptKw("TABLE") {
		if _, err := p.expectKw("VIEW"); err != nil {
			return nil, err
		}
		st.View = true
	}
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	st.Name = n
	return st, nil
}
