package planner

import (
	"strings"

	"github.com/strandsql/strand/parser"
)

// ShowCreate returns SHOW CREATE TABLE's or SHOW CREATE VIEW's statement,
// laid out as Flink's SQL client prints it: a column or option a line.
func (c *Catalog) ShowCreate(st *parser.ShowCreate) (string, error) {
	name := identName(st.Name)
	if st.View {
		v := c.View(name)
		if v == nil {
			return "", errorf(st.Name.Start, ErrUnknownTable, "unknown view '%s'", name)
		}
		head := "CREATE VIEW " + (&parser.Ident{Parts: []string{v.Name}}).String()
		if len(v.Columns) > 0 {
			head += " (" + strings.Join(quoted(v.Columns), ", ") + ")"
		}
		return head + " AS\n" + v.Query.String() + "\n", nil
	}
	t := c.Table(name)
	if t == nil {
		if c.View(name) != nil {
			return "", errorf(st.Name.Start, ErrUnknownTable, "'%s' is a view: SHOW CREATE VIEW shows it", name)
		}
		return "", errorf(st.Name.Start, ErrUnknownTable, "unknown table '%s'", name)
	}
	d := t.DDL
	var elems []string
	for _, col := range d.Columns {
		elems = append(elems, col.String())
	}
	if d.Watermark != nil {
		elems = append(elems, d.Watermark.String())
	}
	if d.PrimaryKey != nil {
		elems = append(elems, d.PrimaryKey.String())
	}
	var b strings.Builder
	b.WriteString("CREATE TABLE " + (&parser.Ident{Parts: []string{t.Name}}).String() + " (\n  ")
	b.WriteString(strings.Join(elems, ",\n  ") + "\n)")
	if d.Comment != nil {
		b.WriteString("\nCOMMENT " + d.Comment.String())
	}
	if len(d.PartitionBy) > 0 {
		var parts []string
		for _, p := range d.PartitionBy {
			parts = append(parts, p.String())
		}
		b.WriteString("\nPARTITIONED BY (" + strings.Join(parts, ", ") + ")")
	}
	if len(d.Options) > 0 {
		var opts []string
		for _, o := range d.Options {
			opts = append(opts, o.String())
		}
		b.WriteString(" WITH (\n  " + strings.Join(opts, ",\n  ") + "\n)")
	}
	return b.String() + "\n", nil
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = (&parser.Ident{Parts: []string{n}}).String()
	}
	return out
}

// Columns returns the column names of table or view name, nil if there is
// none.
func (c *Catalog) Columns(name string) []string {
	var schema []string
	if t := c.Table(name); t != nil {
		for _, f := range t.Schema {
			schema = append(schema, f.Name)
		}
	} else if v := c.View(name); v != nil {
		for _, f := range v.Schema {
			schema = append(schema, f.Name)
		}
	}
	return schema
}
