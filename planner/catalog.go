package planner

import (
	"maps"
	"slices"
	"strings"

	"github.com/strandsql/strand/exec/connector"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// Table is a table declared by CREATE TABLE.
type Table struct {
	Name string
	Pos  parser.Pos
	// Schema is every column, physical and computed, in declaration order.
	Schema types.Schema
	// Physical lists the indexes in Schema of the columns the connector
	// reads or writes: physical and metadata columns.
	Physical []int
	// Meta holds, per entry of Physical, the metadata key of a METADATA
	// column ("" for a physical one), and Virtual whether it is VIRTUAL
	// (read, never written); nil when the table has no metadata column.
	Meta    []string
	Virtual []bool
	// Partitions names the PARTITIONED BY columns, in declared order.
	Partitions []string
	// PrimaryKey names the PRIMARY KEY's columns (NOT NULL, physical), in
	// declared order; nil without one.
	PrimaryKey []string
	// Computed holds, per column of Schema, its expression over the
	// physical columns (a column reference for physical ones); nil when the
	// table has no computed column.
	Computed []expr.Expr
	// Watermark is the WATERMARK expression over Schema, or nil; TimeCol
	// is its rowtime column, or -1.
	Watermark expr.Expr
	TimeCol   int
	Options   map[string]string
	// OptionPos locates each WITH option for error messages.
	OptionPos map[string]parser.Pos
	// DDL is the CREATE TABLE statement, for SHOW and errors; Src and
	// File are the text and file it was read from, when known.
	DDL       *parser.CreateTable
	Src, File string
	// Hinted are the options an OPTIONS hint of one reference sets over
	// the WITH options, for errors placed on the hint (withOptions).
	Hinted []*parser.Option
}

// PhysicalSchema is the schema of the connector's rows when it reads the
// table.
func (t *Table) PhysicalSchema() types.Schema {
	out := make(types.Schema, len(t.Physical))
	for i, c := range t.Physical {
		out[i] = types.Field{Name: t.Schema[c].Name, Type: t.Schema[c].Type.Plain()}
	}
	return out
}

// Source is the table as its connector reads it.
func (t *Table) Source() connector.Table {
	return connector.Table{Name: t.Name, Schema: t.PhysicalSchema(), Metadata: t.Meta, Partitions: t.Partitions, PrimaryKey: t.PrimaryKey, Options: t.Options}
}

// Sink is the table as its connector writes it: without its VIRTUAL
// metadata columns, which writing skips, as in Flink.
func (t *Table) Sink() connector.Table {
	ct := t.Source()
	if t.Meta == nil {
		return ct
	}
	ct.Schema, ct.Metadata = nil, nil
	for i, f := range t.PhysicalSchema() {
		if !t.Virtual[i] {
			ct.Schema = append(ct.Schema, f)
			ct.Metadata = append(ct.Metadata, t.Meta[i])
		}
	}
	return ct
}

// View is a named query.
type View struct {
	Name    string
	Query   parser.Query
	Columns []string // optional column names from CREATE VIEW v (a, b)
	Schema  types.Schema
}

// Catalog holds the session's tables and views. Names are matched exactly
// first, then case-insensitively.
type Catalog struct {
	tables map[string]*Table
	views  map[string]*View
	funcs  map[string]string // CREATE FUNCTION name (upper case) -> the built-in
	// StateTTL is the session's table.exec.state.ttl (ms), which the
	// session sets before planning: with one, group aggregates take their
	// input's rowtime along as their state's clock (bind_ttl.go).
	StateTTL int64
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog {
	return &Catalog{tables: map[string]*Table{}, views: map[string]*View{}}
}

// Table returns the table named name.
func (c *Catalog) Table(name string) *Table { return lookup(c.tables, name) }

// View returns the view named name.
func (c *Catalog) View(name string) *View { return lookup(c.views, name) }

func lookup[V any](m map[string]*V, name string) *V {
	if v, ok := m[name]; ok {
		return v
	}
	for k, v := range m {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return nil
}

// Tables returns the table names, sorted.
func (c *Catalog) Tables() []string { return slices.Sorted(maps.Keys(c.tables)) }

// Views returns the view names, sorted.
func (c *Catalog) Views() []string { return slices.Sorted(maps.Keys(c.views)) }

// Appends says why the table, as a sink, takes insert-only input, or is
// empty when it takes a changelog (connector.SinkChangelog): print,
// blackhole, the debezium-json format and upsert-kafka do; csv, json and
// raw append rows, as in Flink.
func (t *Table) Appends() string {
	_, why := connector.SinkChangelog(t.Sink())
	return why
}
