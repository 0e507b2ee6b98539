package planner

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// SinkSet is a statement set: the plans of its INSERTs, compiled into one
// job. Each INSERT is planned as it would be alone, so that its operators
// have the uids they would have alone; the job reads a table that several
// of them scan alike once (shareSources).
type SinkSet struct {
	Sinks []*Sink
}

func (s *SinkSet) Schema() types.Schema { return nil }

func (s *SinkSet) Inputs() []Node {
	out := make([]Node, len(s.Sinks))
	for i, sk := range s.Sinks {
		out[i] = sk
	}
	return out
}

func (s *SinkSet) describe() string { return fmt.Sprintf("StatementSet(inserts=[%d])", len(s.Sinks)) }

// Mode is the set's own: it emits nothing, its sinks write.
func (s *SinkSet) Mode() Mode { return InsertOnly }

// withSinks is s over rewritten sinks (Optimize).
func (s *SinkSet) withSinks(in []Node) *SinkSet {
	out := &SinkSet{Sinks: make([]*Sink, len(in))}
	for i, n := range in {
		out.Sinks[i] = n.(*Sink) // a rewrite keeps a Sink a Sink
	}
	return out
}

// planSet plans each INSERT of a statement set. Two INSERTs may not write
// one table (their pending files would share the sink's uid) nor hold
// stateful operators of one uid (their state would be one in a savepoint).
func planSet(cat *Catalog, set *parser.StatementSet) (Node, error) {
	s := &SinkSet{}
	uids := map[string]int{}
	for i, ins := range set.Inserts {
		root, err := PlanQuery(cat, ins)
		if err != nil {
			return nil, err
		}
		sk := root.(*Sink)
		for j, prev := range s.Sinks {
			if strings.EqualFold(prev.Table.Name, sk.Table.Name) {
				return nil, errorf(ins.Table.Start, ErrUnsupported, "INSERT %d of the statement set writes table '%s', as INSERT %d does; write both into it with one INSERT of a UNION ALL",
					i+1, sk.Table.Name, j+1)
			}
		}
		for _, uid := range StatefulUIDs(root) {
			if j, ok := uids[uid]; ok {
				return nil, errorf(ins.Start, ErrHint, "INSERT %d of the statement set has a stateful operator of uid %s, as INSERT %d has; name one with /*+ UID('...') */ after its SELECT",
					i+1, uid, j+1)
			}
			uids[uid] = i
		}
		s.Sinks = append(s.Sinks, sk)
	}
	return s, nil
}

// sinkSet compiles each INSERT of a set into the one job, then shares the
// sources its INSERTs read alike. A table that several INSERTs read is
// read once with the columns that any of them needs (wide), so that their
// scans are alike.
func (c *compiler) sinkSet(n *SinkSet) (*stage, error) {
	c.wide = map[string][]bool{}
	for _, sk := range n.Sinks {
		c.widen(sk)
	}
	for _, sk := range n.Sinks {
		if _, err := c.node(sk); err != nil {
			return nil, err
		}
	}
	c.shareSources()
	return nil, nil
}

// widen records in c.wide, per table and options, the columns its scans
// under n read, as compiling them (node, prunedScan) will.
func (c *compiler) widen(n Node) {
	switch n := n.(type) {
	case *Project:
		var cond expr.Expr
		input := n.Input
		if f, ok := input.(*Filter); ok {
			cond, input = f.Cond, f.Input
		}
		if sc, ok := input.(*Scan); ok {
			c.needs(sc.Table, scanNeed(sc.Table, cond, n.Exprs))
			return
		}
	case *Scan:
		c.needs(n.Table, nil)
		return
	}
	for _, in := range n.Inputs() {
		c.widen(in)
	}
}

// needs adds the columns need (nil: all) of t to what its scans read.
func (c *compiler) needs(t *Table, need []bool) {
	k := scanKey(t)
	w := c.wide[k]
	if w == nil {
		w = make([]bool, len(t.Schema))
		c.wide[k] = w
	}
	for i := range w {
		w[i] = w[i] || need == nil || need[i]
	}
}

// scanKey identifies what a scan of t reads: the table and its options
// (an OPTIONS hint makes another source).
func scanKey(t *Table) string {
	var b strings.Builder
	b.WriteString(t.Name)
	for _, k := range slices.Sorted(maps.Keys(t.Options)) {
		fmt.Fprintf(&b, "\x00%s=%s", k, t.Options[k])
	}
	return b.String()
}

// shareSources makes the sources that read alike one source vertex: the
// same table, options and columns. The first keeps its uid and place;
// each of the others' chains reads it on a forward edge (a vertex of its
// own, named after its sink), and an edge that read one without a chain
// reads the shared one. When they drop other rows as late (windows of
// other slides, or none), each edge out of the shared source drops what
// its pipeline's source dropped (exec.Edge.Fires).
func (c *compiler) shareSources() {
	groups := map[string][]*exec.Vertex{}
	for _, v := range c.vertices {
		if v.Source != nil {
			k := c.scanKeys[v.Source] + "\x00" + strings.Join(v.Source.Reads, ",")
			groups[k] = append(groups[k], v)
		}
	}
	shared := map[*exec.Vertex]*exec.Vertex{}     // a member -> its group's source
	fires := map[*exec.Vertex]func(int64) int64{} // a member -> the late rows of its edges
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		spec := g[0].Source
		alike := true
		for _, m := range g {
			alike = alike && c.fireKeys[m.Source] == c.fireKeys[spec]
		}
		if !alike {
			own := *spec
			own.Fires = nil
			spec = &own
		}
		src := &exec.Vertex{Name: g[0].Name, Parallelism: g[0].Parallelism, Source: spec}
		for _, m := range g {
			shared[m] = src
			if !alike {
				fires[m] = m.Source.Fires
			}
			m.Source = nil
			m.Inputs = []*exec.Edge{{From: src, Kind: exec.Forward, Fires: fires[m]}}
			m.Name = "Calc"
			if m.Sink != nil {
				m.Name = "Sink: " + m.SinkName
			}
		}
	}
	if len(shared) == 0 {
		return
	}
	var out []*exec.Vertex
	placed := map[*exec.Vertex]bool{}
	for _, v := range c.vertices {
		if src := shared[v]; src != nil && !placed[src] {
			placed[src] = true
			out = append(out, src)
		}
		if src := shared[v]; src != nil && len(v.Ops) == 0 && v.Sink == nil {
			continue // its readers read src
		}
		for _, e := range v.Inputs {
			if src := shared[e.From]; src != nil && len(e.From.Ops) == 0 && e.From.Sink == nil {
				e.From, e.Fires = src, fires[e.From]
			}
		}
		out = append(out, v)
	}
	for i, v := range out {
		v.ID = i + 1
	}
	c.vertices = out
}
