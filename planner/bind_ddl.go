package planner

import (
	"errors"
	"slices"
	"strings"

	"github.com/strandsql/strand/exec/connector"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// bindCreateTable checks a CREATE TABLE and returns the table it declares.
func bindCreateTable(st *parser.CreateTable) (*Table, error) {
	t := &Table{Name: identName(st.Name), Pos: st.Start, TimeCol: -1, Options: map[string]string{}, OptionPos: map[string]parser.Pos{}, DDL: st}
	pk, err := bindPrimaryKey(st)
	if err != nil {
		return nil, err
	}
	t.PrimaryKey = pk
	seen := map[string]bool{}
	var phys scope
	for _, c := range st.Columns {
		if seen[strings.ToLower(c.Name)] {
			return nil, errorf(c.Start, ErrExists, "column '%s' is declared twice", c.Name)
		}
		seen[strings.ToLower(c.Name)] = true
		if c.Expr != nil {
			continue
		}
		typ, err := typeOf(c.Type)
		if err != nil {
			return nil, err
		}
		if slices.Contains(pk, c.Name) {
			typ.NotNull = true // as in Flink: a primary key's columns are NOT NULL
		}
		t.Physical = append(t.Physical, len(t.Schema))
		t.Schema = append(t.Schema, types.Field{Name: c.Name, Type: typ})
		phys.cols = append(phys.cols, column{name: c.Name, typ: typ})
		key := ""
		if c.Metadata {
			key = c.Name
			if c.MetadataKey != nil {
				key = c.MetadataKey.Value
			}
		}
		t.Meta = append(t.Meta, key)
		t.Virtual = append(t.Virtual, c.Virtual)
	}
	if !slices.ContainsFunc(st.Columns, func(c *parser.ColumnDef) bool { return c.Metadata }) {
		t.Meta, t.Virtual = nil, nil
	}
	if err := bindPartitions(t, st); err != nil {
		return nil, err
	}
	// Computed columns are expressions over the physical columns; the full
	// schema keeps declaration order.
	hasComputed := len(t.Physical) < len(st.Columns)
	if hasComputed {
		t.Schema = nil
		pi := 0
		for _, c := range st.Columns {
			if c.Expr == nil {
				col := phys.cols[pi]
				t.Computed = append(t.Computed, &expr.Col{Index: pi, Name: col.name, T: col.typ})
				t.Schema = append(t.Schema, types.Field{Name: c.Name, Type: col.typ})
				pi++
				continue
			}
			e, err := bindExpr(&exprCtx{scope: &phys, clause: "in a computed column"}, c.Expr)
			if err != nil {
				return nil, err
			}
			t.Computed = append(t.Computed, e)
			t.Schema = append(t.Schema, types.Field{Name: c.Name, Type: e.Type()})
		}
		t.Physical = t.Physical[:0]
		for i, c := range st.Columns {
			if c.Expr == nil {
				t.Physical = append(t.Physical, i)
			}
		}
	}
	if w := st.Watermark; w != nil {
		full := scopeOf(t.Schema, "")
		i, err := full.resolve(w.Column)
		if err != nil {
			return nil, err
		}
		ct := t.Schema[i].Type
		if !ct.IsTimestamp() {
			return nil, errorf(w.Column.Start, ErrType, "WATERMARK column '%s' must be TIMESTAMP or TIMESTAMP_LTZ, got %s", t.Schema[i].Name, ct.Plain())
		}
		e, err := bindExpr(&exprCtx{scope: full, clause: "in a WATERMARK"}, w.Expr)
		if err != nil {
			return nil, err
		}
		if !e.Type().IsTimestamp() {
			return nil, errorf(w.Expr.Pos(), ErrType, "WATERMARK expression must be a TIMESTAMP, got %s", e.Type().Plain())
		}
		t.Watermark = coerce(e, ct.Plain())
		t.TimeCol = i
		t.Schema[i].Type.Attr = types.RowTime
	}
	opts, err := legacyOptions(st.Options)
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		t.Options[o.Key] = o.Value
		t.OptionPos[o.Key] = o.Start
	}
	// A table may be read or written; which is known only where it is
	// used, and checked again there. Here it must be valid for one of them.
	if err := connector.Validate(t.Source(), true); err != nil {
		if serr := connector.Validate(t.Sink(), false); serr != nil {
			// Of the two, a refused column says more than a connector
			// used the wrong way.
			var ce *connector.ColumnError
			if errors.As(serr, &ce) && !errors.As(err, &ce) {
				err = serr
			}
			return nil, optionError(t, err)
		}
	}
	return t, nil
}

// bindPrimaryKey resolves PRIMARY KEY (cols) NOT ENFORCED, declared on
// the table or on one column, to its columns' names. As in Flink, the key
// is a declaration that is not enforced: its columns are NOT NULL, a sink
// fed updates takes them by it (planSinks), and upsert-kafka's record key
// is it.
func bindPrimaryKey(st *parser.CreateTable) ([]string, error) {
	var names []string
	var at parser.Pos
	for _, c := range st.Columns {
		if !c.PrimaryKey {
			continue
		}
		if names != nil {
			return nil, errorf(c.Start, ErrExists, "table %s has more than one PRIMARY KEY: declare a key of several columns as PRIMARY KEY (a, b) NOT ENFORCED", identName(st.Name))
		}
		names, at = []string{c.Name}, c.Start
	}
	if k := st.PrimaryKey; k != nil {
		if names != nil {
			return nil, errorf(k.Start, ErrExists, "table %s has more than one PRIMARY KEY (a column at %d:%d declares one)", identName(st.Name), at.Line, at.Column)
		}
		for _, id := range k.Columns {
			name := id.Parts[len(id.Parts)-1]
			i := slices.IndexFunc(st.Columns, func(c *parser.ColumnDef) bool { return c.Name == name })
			if i < 0 {
				i = slices.IndexFunc(st.Columns, func(c *parser.ColumnDef) bool { return strings.EqualFold(c.Name, name) })
			}
			if i < 0 {
				return nil, errorf(id.Start, ErrUnknownColumn, "PRIMARY KEY names no column '%s' of table %s", name, identName(st.Name))
			}
			name = st.Columns[i].Name
			if slices.Contains(names, name) {
				return nil, errorf(id.Start, ErrExists, "PRIMARY KEY names column '%s' twice", name)
			}
			names = append(names, name)
		}
	}
	for _, name := range names {
		c := st.Columns[slices.IndexFunc(st.Columns, func(c *parser.ColumnDef) bool { return c.Name == name })]
		if c.Expr != nil || c.Metadata {
			return nil, errorf(c.Start, ErrType, "column '%s' cannot be in a PRIMARY KEY: a primary key is made of physical columns, as in Flink", name)
		}
	}
	return names, nil
}

// bindPartitions resolves PARTITIONED BY: each name a physical column,
// once.
func bindPartitions(t *Table, st *parser.CreateTable) error {
	for _, id := range st.PartitionBy {
		name := id.Parts[len(id.Parts)-1]
		i := slices.IndexFunc(st.Columns, func(c *parser.ColumnDef) bool { return c.Name == name })
		if i < 0 {
			i = slices.IndexFunc(st.Columns, func(c *parser.ColumnDef) bool { return strings.EqualFold(c.Name, name) })
		}
		if i < 0 {
			return errorf(id.Start, ErrUnknownColumn, "PARTITIONED BY names no column '%s' of table %s", name, t.Name)
		}
		c := st.Columns[i]
		if c.Expr != nil || c.Metadata {
			return errorf(id.Start, ErrType, "partition column '%s' of table %s must be a physical column, not a computed or metadata one", c.Name, t.Name)
		}
		if slices.Contains(t.Partitions, c.Name) {
			return errorf(id.Start, ErrExists, "column '%s' is named twice in PARTITIONED BY", c.Name)
		}
		t.Partitions = append(t.Partitions, c.Name)
	}
	return nil
}

// optionError places a connector's option error on the option it names.
func optionError(t *Table, err error) error {
	if e := hintedOptionError(t, err); e != nil {
		return e
	}
	var ce *connector.ColumnError
	if errors.As(err, &ce) {
		return &Error{Pos: columnPos(t, ce), Kind: ErrOption, Msg: err.Error(), Src: t.Src, File: t.File}
	}
	var oe *connector.OptionError
	if errors.As(err, &oe) {
		pos, ok := t.OptionPos[oe.Key]
		if !ok {
			pos = t.Pos
		}
		if oe.AtValue {
			for _, o := range t.DDL.Options {
				if o.Key == oe.Key {
					pos = o.ValuePos
				}
			}
		}
		return &Error{Pos: pos, Kind: ErrOption, Msg: err.Error(), Src: t.Src, File: t.File}
	}
	return &Error{Pos: t.Pos, Kind: ErrOption, Msg: err.Error(), Src: t.Src, File: t.File}
}

// metadataExtras is how DESCRIBE shows a metadata column, as Flink does:
// METADATA [FROM 'key'] [VIRTUAL].
func metadataExtras(c *parser.ColumnDef) string {
	s := "METADATA"
	if c.MetadataKey != nil {
		s += " FROM " + c.MetadataKey.String()
	}
	if c.Virtual {
		s += " VIRTUAL"
	}
	return s
}

// columnPos locates the column a connector refused: its name in
// PARTITIONED BY, its metadata key, or its declaration.
func columnPos(t *Table, ce *connector.ColumnError) parser.Pos {
	if ce.Partition {
		for _, id := range t.DDL.PartitionBy {
			if strings.EqualFold(id.Parts[len(id.Parts)-1], ce.Column) {
				return id.Start
			}
		}
	}
	for _, c := range t.DDL.Columns {
		if c.Name == ce.Column {
			if ce.AtKey && c.MetadataKey != nil {
				return c.MetadataKey.Start
			}
			return c.Start
		}
	}
	return t.Pos
}

func identName(id *parser.Ident) string { return strings.Join(id.Parts, ".") }
