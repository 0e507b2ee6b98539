package planner

import (
	"slices"
	"strings"

	"github.com/strandsql/strand/parser"
)

// CREATE TABLE ... LIKE source merges the source table's declaration into
// the new one, with Flink's rules (FLIP-110, MergeTableLikeUtil), into
// one plain CREATE TABLE, which is what the catalog keeps and SHOW CREATE
// TABLE shows. Per feature, a strategy:
//
//   - INCLUDING takes the source's, and refuses a duplicate (an option of
//     the same key, a second primary key or PARTITIONED BY, a watermark or
//     computed or metadata column of the same name);
//   - EXCLUDING leaves the source's out;
//   - OVERWRITING takes the source's, the new table's winning a duplicate.
//
// The default is INCLUDING ALL OVERWRITING OPTIONS. INCLUDING ALL or
// EXCLUDING ALL sets every feature's strategy, OPTIONS's too; the options
// naming a feature set its own after that. Physical columns are always
// taken, the source's first; a new column of a source column's name is
// refused.

// likeDefaults are Flink's default strategies.
var likeDefaults = map[string]string{
	"CONSTRAINTS": "INCLUDING", "GENERATED": "INCLUDING", "METADATA": "INCLUDING",
	"OPTIONS": "OVERWRITING", "PARTITIONS": "INCLUDING", "WATERMARKS": "INCLUDING",
}

// likeStrategies returns the strategy of each feature of a LIKE clause.
func likeStrategies(l *parser.TableLike) map[string]string {
	out := map[string]string{}
	for f, s := range likeDefaults {
		out[f] = s
	}
	for _, o := range l.Options {
		if o.Feature == "ALL" {
			for f := range out {
				out[f] = o.Strategy
			}
		}
	}
	for _, o := range l.Options {
		if o.Feature != "ALL" {
			out[o.Feature] = o.Strategy
		}
	}
	return out
}

// mergeLike returns st with the table its LIKE clause names merged in.
func (c *Catalog) mergeLike(st *parser.CreateTable) (*parser.CreateTable, error) {
	l := st.Like
	name := identName(l.Source)
	src := c.Table(name)
	if src == nil {
		if c.View(name) != nil {
			return nil, errorf(l.Source.Start, ErrUnsupported, "the source of a LIKE clause must be a table; '%s' is a view", name)
		}
		return nil, errorf(l.Source.Start, ErrUnknownTable, "unknown table '%s'%s", name, (&binder{cat: c}).known())
	}
	base := src.DDL
	how := likeStrategies(l)
	m := &parser.CreateTable{Start: st.Start, Temporary: st.Temporary, IfNotExists: st.IfNotExists, Name: st.Name, Comment: st.Comment}

	// Columns: the source's (all physical ones, computed and metadata ones
	// as GENERATED and METADATA say), then the new table's.
	feature := func(col *parser.ColumnDef) string {
		switch {
		case col.Expr != nil:
			return "GENERATED"
		case col.Metadata:
			return "METADATA"
		}
		return ""
	}
	for _, col := range base.Columns {
		if f := feature(col); f == "" || how[f] != "EXCLUDING" {
			m.Columns = append(m.Columns, col)
		}
	}
	for _, col := range st.Columns {
		at := -1
		for i, old := range m.Columns {
			if strings.EqualFold(old.Name, col.Name) {
				at = i
			}
		}
		if at < 0 {
			m.Columns = append(m.Columns, col)
			continue
		}
		old, f := m.Columns[at], feature(col)
		switch {
		case f == "" || feature(old) != f:
			return nil, errorf(col.Start, ErrExists, "a column named '%s' already exists in the base table '%s'", col.Name, name)
		case how[f] == "OVERWRITING":
			m.Columns[at] = col
		default:
			kind := map[string]string{"GENERATED": "computed", "METADATA": "metadata"}[f]
			return nil, errorf(col.Start, ErrExists, "a %s column named '%s' already exists in the base table '%s'; you might want to specify EXCLUDING %s or OVERWRITING %s",
				kind, col.Name, name, f, f)
		}
	}

	// The watermark: strand has one per table, as Flink has.
	m.Watermark = st.Watermark
	if base.Watermark != nil && how["WATERMARKS"] != "EXCLUDING" {
		switch w := st.Watermark; {
		case w == nil:
			m.Watermark = base.Watermark
		case how["WATERMARKS"] == "INCLUDING":
			return nil, errorf(w.Start, ErrExists, "the base table '%s' already has a watermark (on '%s'); you might want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS",
				name, identName(base.Watermark.Column))
		}
	}

	// The primary key, declared on its own or on a column.
	m.PrimaryKey = st.PrimaryKey
	switch {
	case how["CONSTRAINTS"] == "EXCLUDING":
		m.Columns = withoutKeys(m.Columns, base.Columns)
	case (base.PrimaryKey != nil || keyColumn(base) != nil) && (st.PrimaryKey != nil || keyColumn(st) != nil):
		return nil, errorf(keyPos(st), ErrExists, "the base table '%s' already has a primary key; you might want to specify EXCLUDING CONSTRAINTS", name)
	case base.PrimaryKey != nil:
		m.PrimaryKey = base.PrimaryKey
	}

	m.PartitionBy = st.PartitionBy
	if len(base.PartitionBy) > 0 && how["PARTITIONS"] == "INCLUDING" {
		if len(st.PartitionBy) > 0 {
			return nil, errorf(st.PartitionBy[0].Start, ErrExists, "the base table '%s' is already PARTITIONED BY; you might want to specify EXCLUDING PARTITIONS", name)
		}
		m.PartitionBy = base.PartitionBy
	}

	if how["OPTIONS"] != "EXCLUDING" {
		for _, o := range base.Options {
			if n := optionNamed(st.Options, o.Key); n != nil {
				if how["OPTIONS"] == "INCLUDING" {
					return nil, errorf(n.Start, ErrExists, "the base table '%s' already has the option '%s' = '%s'; you might want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS",
						name, o.Key, o.Value)
				}
				continue
			}
			m.Options = append(m.Options, o)
		}
	}
	m.Options = append(m.Options, st.Options...)
	return m, nil
}

// withoutKeys returns cols with the column-level primary key of those
// from the base table's columns dropped (EXCLUDING CONSTRAINTS).
func withoutKeys(cols, base []*parser.ColumnDef) []*parser.ColumnDef {
	out := make([]*parser.ColumnDef, len(cols))
	for i, c := range cols {
		if c.PrimaryKey && slices.Contains(base, c) {
			cc := *c
			cc.PrimaryKey = false
			c = &cc
		}
		out[i] = c
	}
	return out
}

// keyPos is where st declares its primary key.
func keyPos(st *parser.CreateTable) parser.Pos {
	if st.PrimaryKey != nil {
		return st.PrimaryKey.Start
	}
	return keyColumn(st).Start
}

func keyColumn(st *parser.CreateTable) *parser.ColumnDef {
	for _, c := range st.Columns {
		if c.PrimaryKey {
			return c
		}
	}
	return nil
}

func optionNamed(opts []*parser.Option, key string) *parser.Option {
	for _, o := range opts {
		if o.Key == key {
			return o
		}
	}
	return nil
}
