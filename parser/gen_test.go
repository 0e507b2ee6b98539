package parser

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// gen writes random SQL from a sketch of the grammar. Sub-expressions in
// positions that bind tighter than their own operators are parenthesised, so
// every output is valid; the parser must accept it and render it back.
type gen struct{ r *rand.Rand }

func (g *gen) pick(s ...string) string { return s[g.r.IntN(len(s))] }

func (g *gen) maybe(s string) string {
	if g.r.IntN(2) == 0 {
		return s
	}
	return ""
}

func (g *gen) list(n int, f func() string) string {
	parts := make([]string, 1+g.r.IntN(n))
	for i := range parts {
		parts[i] = f()
	}
	return strings.Join(parts, ", ")
}

func (g *gen) ident() string {
	return g.pick("a", "b", "t", "Ts", "window_start", "url", "second", "tables", "watermark", "nulls", "data",
		"`select`", "`a b`", "`a``b`", "`value`", "`date`", "x_1", "é", "`ſelect`", "`unbounded`", "`current`", "descriptor")
}

func (g *gen) name() string {
	if g.r.IntN(3) == 0 {
		return g.ident() + "." + g.ident()
	}
	return g.ident()
}

func (g *gen) leaf() string {
	switch g.r.IntN(14) {
	case 0:
		return g.pick("1", "0", "2.5", "1e3", ".5", "1.")
	case 1:
		return g.pick("'x'", "''", "'it''s'", "'\n'")
	case 2:
		return g.pick("TRUE", "false", "NULL")
	case 3:
		return g.pick("DATE '2020-01-01'", "TIME '10:00'", "TIMESTAMP '2020-01-01 00:00:00'")
	case 4:
		return g.pick("INTERVAL '1' SECOND", "INTERVAL '2' minutes", "INTERVAL '1:30' HOUR TO MINUTE", "INTERVAL '1-2' YEAR TO MONTH")
	case 5:
		return g.pick("CURRENT_TIMESTAMP", "LOCALTIMESTAMP", "CURRENT_DATE", "PROCTIME()")
	}
	return g.name()
}

// tight renders an expression safe in a position that binds tighter than
// any binary operator.
func (g *gen) tight(d int) string {
	if d <= 0 || g.r.IntN(3) == 0 {
		return g.leaf()
	}
	return "(" + g.expr(d-1) + ")"
}

func (g *gen) expr(d int) string {
	if d <= 0 {
		return g.leaf()
	}
	e := func() string { return g.expr(d - 1) }
	t := func() string { return g.tight(d - 1) }
	switch g.r.IntN(26) {
	case 0, 1, 2:
		return e() + " " + g.pick("OR", "AND", "=", "<>", "!=", "<", "<=", ">", ">=", "||", "+", "-", "*", "/", "%") + " " + e()
	case 3:
		return g.pick("-", "+", "NOT ") + t()
	case 4:
		return t() + " IS " + g.maybe("NOT ") + g.pick("NULL", "TRUE", "FALSE", "UNKNOWN", "DISTINCT FROM "+t())
	case 5:
		return t() + g.maybe(" NOT") + " BETWEEN " + g.maybe("SYMMETRIC ") + t() + " AND " + t()
	case 6:
		return t() + g.maybe(" NOT") + " IN (" + g.list(3, e) + ")"
	case 7:
		return t() + g.maybe(" NOT") + " IN (" + g.query(d-1) + ")"
	case 8:
		return t() + g.maybe(" NOT") + " LIKE " + t() + g.maybe(" ESCAPE '!'")
	case 9:
		return g.pick("f", "MOD", "tumble_start", "`my fn`", "LEFT", "RIGHT", "IF") + "(" + g.maybe(g.list(3, e)) + ")"
	case 10:
		return g.pick("COUNT(*)", "COUNT(DISTINCT "+e()+")", "SUM(ALL "+e()+")") + g.maybe(" FILTER (WHERE "+e()+")")
	case 11:
		return "ROW_NUMBER() OVER (" + g.maybe("PARTITION BY "+g.list(2, e)+" ") + g.maybe("ORDER BY "+g.orderList(d-1)+" ") +
			g.maybe(g.pick("ROWS", "RANGE")+" "+g.pick("UNBOUNDED PRECEDING", "CURRENT ROW", t()+" PRECEDING",
				"BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", "BETWEEN "+t()+" PRECEDING AND "+t()+" FOLLOWING")) + ")"
	case 12:
		return g.pick("CAST", "TRY_CAST") + "(" + e() + " AS " + g.typ(d-1) + ")"
	case 13:
		return "CASE " + g.maybe(e()+" ") + "WHEN " + e() + " THEN " + e() + g.maybe(" WHEN "+e()+" THEN "+e()) + g.maybe(" ELSE "+e()) + " END"
	case 14:
		return "EXTRACT(" + g.pick("YEAR", "epoch", "DOW", "SECOND") + " FROM " + e() + ")"
	case 15:
		if g.r.IntN(2) == 0 { // an interval operand would take the TO
			return g.pick("FLOOR", "CEIL", "ceiling") + "(" + e() + ")"
		}
		return g.pick("FLOOR", "CEIL", "ceiling") + "((" + e() + ") TO " + g.pick("HOUR", "DAY", "MINUTE") + ")"
	case 16:
		if g.r.IntN(2) == 0 {
			return "SUBSTRING(" + e() + " FROM " + e() + g.maybe(" FOR "+e()) + ")"
		}
		return "SUBSTRING(" + e() + ", " + e() + g.maybe(", "+e()) + ")"
	case 17:
		return g.pick("TRIM("+e()+")", "TRIM(BOTH FROM "+e()+")", "TRIM(LEADING "+e()+" FROM "+e()+")", "TRIM("+e()+" FROM "+e()+")")
	case 18:
		return "POSITION(" + t() + " IN " + e() + ")"
	case 19:
		return "(" + g.query(d-1) + ")"
	case 20:
		return g.maybe("NOT ") + "EXISTS (" + g.query(d-1) + ")"
	}
	return "(" + e() + ")"
}

func (g *gen) typ(d int) string {
	if d > 0 {
		switch g.r.IntN(8) {
		case 0:
			return "ARRAY<" + g.typ(d-1) + ">"
		case 1:
			return "MAP<" + g.typ(d-1) + ", " + g.typ(d-1) + ">"
		case 2:
			return "ROW<" + g.list(2, func() string { return g.ident() + " " + g.typ(d-1) }) + ">"
		}
	}
	return g.pick("INT", "integer", "BIGINT", "STRING", "VARCHAR(10)", "DECIMAL(10, 2)", "DOUBLE PRECISION",
		"TIMESTAMP(3)", "TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ(3)", "TIME WITHOUT TIME ZONE", "BOOLEAN", "BYTES") +
		g.maybe(" NOT NULL")
}

func (g *gen) orderList(d int) string {
	return g.list(2, func() string {
		return g.expr(d) + g.maybe(" "+g.pick("ASC", "DESC")) + g.maybe(" NULLS "+g.pick("FIRST", "LAST"))
	})
}

func (g *gen) alias() string {
	return g.maybe(g.pick(" AS ", " ") + g.ident())
}

// hints is a /*+ ... */ of query or table hints in each option form.
func (g *gen) hints() string {
	return "/*+ " + g.list(3, func() string {
		name := g.pick("UID", "OPTIONS", "broadcast", "`my hint`", "X")
		switch g.r.IntN(4) {
		case 0:
			return name
		case 1:
			return name + "()"
		case 2:
			return name + "(" + g.list(3, func() string { return g.pick(g.ident(), "'a*/b'", "'it''s'", "1", "2.5") }) + ")"
		}
		return name + "(" + g.list(3, func() string { return g.pick(g.ident(), "'k'", "'x.y'") + " = " + g.pick("'v'", "''") }) + ")"
	}) + " */"
}

func (g *gen) from(d int) string {
	var s string
	switch g.r.IntN(5) {
	case 0:
		s = "(" + g.query(d-1) + ")" + g.alias()
	case 1:
		s = "TABLE(" + g.pick("TUMBLE", "HOP", "CUMULATE", "SESSION") + "(TABLE " + g.name() + g.maybe(" PARTITION BY "+g.ident()) +
			", DESCRIPTOR(" + g.ident() + "), " + g.leaf() + g.maybe(", "+g.leaf()) + "))" + g.alias()
	case 2:
		s = "TABLE(TUMBLE(DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), SIZE => " + g.expr(d-1) + "))" + g.alias()
	default:
		s = g.name() + g.maybe(" "+g.hints()) + g.maybe(" FOR SYSTEM_TIME AS OF "+g.name()) + g.alias()
	}
	if d > 0 && g.r.IntN(3) == 0 {
		if g.r.IntN(2) == 0 {
			return s + ", " + g.from(d-1)
		}
		j := g.pick("JOIN", "INNER JOIN", "LEFT JOIN", "LEFT OUTER JOIN", "RIGHT JOIN", "FULL OUTER JOIN", "CROSS JOIN")
		s += " " + j + " " + g.name() + g.alias()
		if j != "CROSS JOIN" {
			s += " ON " + g.expr(d-1)
		}
	}
	return s
}

func (g *gen) query(d int) string {
	e := func() string { return g.expr(d - 1) }
	var s string
	if d > 0 && g.r.IntN(6) == 0 {
		s = "WITH " + g.ident() + " AS (" + g.query(d-1) + ") "
	}
	switch {
	case g.r.IntN(8) == 0:
		s += "VALUES " + g.list(2, func() string { return "(" + g.list(2, e) + ")" })
		return s
	case d > 0 && g.r.IntN(6) == 0:
		s += "(" + g.query(d-1) + ") " + g.pick("UNION", "UNION ALL", "INTERSECT", "EXCEPT", "UNION DISTINCT") + " (" + g.query(d-1) + ")"
	default:
		s += "SELECT " + g.maybe(g.hints()+" ") + g.pick("", "DISTINCT ", "ALL ") + g.list(3, func() string {
			switch g.r.IntN(6) {
			case 0:
				return "*"
			case 1:
				return g.ident() + ".*"
			}
			return e() + g.alias()
		})
		if g.r.IntN(5) > 0 {
			s += " FROM " + g.from(d-1)
		}
		s += g.maybe(" WHERE " + e())
		if g.r.IntN(3) == 0 {
			s += " GROUP BY " + g.list(3, func() string { return g.grouping(d-1, true) }) + g.maybe(" HAVING "+e())
		}
	}
	if g.r.IntN(4) == 0 {
		s += " ORDER BY " + g.orderList(d-1)
	}
	return s + g.maybe(" LIMIT 10")
}

// grouping is an element of GROUP BY: an expression, a list, (), and with
// sets GROUPING SETS, ROLLUP or CUBE.
func (g *gen) grouping(d int, sets bool) string {
	e := func() string { return g.expr(d) }
	list := func() string { return "(" + g.list(3, e) + ")" }
	k := g.r.IntN(6)
	if k >= 3 && (!sets || d <= 0) {
		k = 2
	}
	switch k {
	case 0:
		return "()"
	case 1:
		return list()
	case 3:
		return "GROUPING SETS (" + g.list(3, func() string { return g.grouping(d-1, true) }) + ")"
	case 4, 5:
		return g.pick("ROLLUP", "CUBE", "rollup") + "(" + g.list(3, func() string { return g.grouping(d-1, false) }) + ")"
	}
	return e()
}

func (g *gen) statement(d int) string {
	switch g.r.IntN(12) {
	case 0:
		return "CREATE " + g.maybe("TEMPORARY ") + "TABLE " + g.maybe("IF NOT EXISTS ") + g.name() + " (" +
			g.list(4, func() string {
				if g.r.IntN(4) == 0 {
					return g.ident() + " AS " + g.expr(d-1)
				}
				return g.ident() + " " + g.typ(d-1) + g.maybe(" METADATA"+g.maybe(" FROM 'k'")+g.maybe(" VIRTUAL")) + g.maybe(" COMMENT 'c'")
			}) + g.maybe(", WATERMARK FOR "+g.ident()+" AS "+g.expr(d-1)) + g.maybe(", PRIMARY KEY ("+g.ident()+") NOT ENFORCED") + ")" +
			g.maybe(" COMMENT 'x'") + g.maybe(" PARTITIONED BY ("+g.ident()+")") + g.maybe(" WITH ('k' = 'v', 'a.b' = 'it''s')")
	case 1:
		return "CREATE " + g.maybe("TEMPORARY ") + "VIEW " + g.maybe("IF NOT EXISTS ") + g.name() + g.maybe(" ("+g.ident()+")") + " AS " + g.query(d)
	case 2:
		return "INSERT " + g.pick("INTO", "OVERWRITE") + " " + g.name() + g.maybe(" "+g.hints()) + g.maybe(" ("+g.list(2, g.ident)+")") + " " + g.query(d)
	case 3:
		return g.pick("SET", "SET 'k' = 'v'", "RESET", "RESET 'k'", "SHOW TABLES", "SHOW VIEWS", "DESCRIBE "+g.name(), "DESC "+g.name(),
			"DROP TABLE IF EXISTS "+g.name(), "DROP TEMPORARY VIEW "+g.name(), "CREATE FUNCTION "+g.name()+" AS 'c'", "DROP FUNCTION IF EXISTS "+g.name())
	case 4:
		return "EXPLAIN " + g.maybe("PLAN FOR ") + g.query(d)
	}
	return g.query(d)
}

func TestGenerated(t *testing.T) {
	n := 4000
	if testing.Short() || raceEnabled {
		n = 400
	}
	g := &gen{r: rand.New(rand.NewPCG(3, 4))}
	for i := range n {
		src := g.statement(1+i%4) + g.maybe(";") + g.maybe(" -- c\n/* d */")
		stmts, err := Parse(src)
		if err != nil {
			t.Fatalf("%s", FormatError(fmt.Sprint("generated ", i), src, err))
		}
		checkRoundTrip(t, stmts)
	}
}
