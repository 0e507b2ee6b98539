package planner

import (
	"slices"
	"strconv"
	"strings"

	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// CreateTable binds a CREATE TABLE and adds the table to the catalog. src
// and file are the text and file the statement comes from, kept with the
// table so that errors found later (a missing path) point into it.
func (c *Catalog) CreateTable(st *parser.CreateTable, src, file string) error {
	name := identName(st.Name)
	if c.Table(name) != nil || c.View(name) != nil {
		if st.IfNotExists {
			return nil
		}
		return errorf(st.Name.Start, ErrExists, "table or view '%s' already exists", name)
	}
	if st.Like != nil {
		merged, err := c.mergeLike(st)
		if err != nil {
			return err
		}
		st = merged
	}
	c.resolveFuncs(st)
	t, err := bindCreateTable(st)
	if err != nil {
		return err
	}
	if src != "" {
		t.Src, t.File = src, file
	}
	c.tables[name] = t
	return nil
}

// CreateView binds a CREATE VIEW and adds the view to the catalog.
func (c *Catalog) CreateView(st *parser.CreateView) error {
	name := identName(st.Name)
	if c.Table(name) != nil || c.View(name) != nil {
		if st.IfNotExists {
			return nil
		}
		return errorf(st.Name.Start, ErrExists, "table or view '%s' already exists", name)
	}
	c.resolveFuncs(st)
	b := &binder{cat: c}
	r, err := b.query(st.Query)
	if err != nil {
		return err
	}
	if r, err = renameColumns(r, st.Columns); err != nil {
		return err
	}
	v := &View{Name: name, Query: st.Query, Schema: r.scope.schema()}
	for _, c := range st.Columns {
		v.Columns = append(v.Columns, c.Parts[len(c.Parts)-1])
	}
	c.views[name] = v
	return nil
}

// Drop removes a table (view false) or a view from the catalog.
func (c *Catalog) Drop(id *parser.Ident, ifExists, view bool) error {
	name := identName(id)
	if view {
		if v := c.View(name); v != nil {
			delete(c.views, v.Name)
			return nil
		}
	} else if t := c.Table(name); t != nil {
		delete(c.tables, t.Name)
		return nil
	}
	if ifExists {
		return nil
	}
	return errorf(id.Start, ErrUnknownTable, "unknown %s '%s'", map[bool]string{true: "view", false: "table"}[view], name)
}

var describeHeader = []string{"name", "type", "null", "key", "extras", "watermark"}

// Describe returns DESCRIBE's table of a table's or view's columns.
func (c *Catalog) Describe(st *parser.Describe) (header []string, rows [][]string, err error) {
	name := identName(st.Name)
	if t := c.Table(name); t != nil {
		for i, f := range t.Schema {
			extras, wm := "", ""
			if c := t.DDL.Columns[i]; c.Expr != nil {
				extras = "AS " + c.Expr.String()
			} else if c.Metadata {
				extras = metadataExtras(c)
			}
			if i == t.TimeCol {
				wm = t.DDL.Watermark.Expr.String()
			}
			key := ""
			if slices.Contains(t.PrimaryKey, f.Name) {
				key = "PRI(" + strings.Join(t.PrimaryKey, ", ") + ")"
			}
			rows = append(rows, []string{f.Name, f.Type.Plain().Nullable().String() + attrSuffix(f.Type), strconv.FormatBool(!f.Type.NotNull), key, extras, wm})
		}
		return describeHeader, rows, nil
	}
	if v := c.View(name); v != nil {
		for _, f := range v.Schema {
			rows = append(rows, []string{f.Name, f.Type.Plain().Nullable().String() + attrSuffix(f.Type), strconv.FormatBool(!f.Type.NotNull), "", "", ""})
		}
		return describeHeader, rows, nil
	}
	return nil, nil, errorf(st.Name.Start, ErrUnknownTable, "unknown table or view '%s'", name)
}

func attrSuffix(t types.Type) string {
	switch t.Attr {
	case types.RowTime:
		return " *ROWTIME*"
	case types.ProcTime:
		return " *PROCTIME*"
	}
	return ""
}
