package exec

import (
	"time"

	"fmt"
	"strings"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

// DefaultMaxParallelism is the number of key groups, as Flink's default of
// 128: the unit in which keyed state is partitioned and redistributed.
const DefaultMaxParallelism = 128

// PartKind is how a vertex's output is distributed over the subtasks of
// the vertex that reads it.
type PartKind uint8

// Partitionings of an edge.
const (
	// Forward sends subtask i's output to subtask i (equal parallelism).
	Forward PartKind = iota
	// Hash sends each row to the subtask owning its key's key group.
	Hash
	// Rebalance sends whole batches round-robin.
	Rebalance
	// Broadcast sends every batch to every subtask.
	Broadcast
	// Global sends everything to the single subtask of a vertex of
	// parallelism 1: an operator whose result is global, such as a
	// window's Top-N, reads all of its input there.
	Global
)

func (k PartKind) String() string {
	return [...]string{"forward", "hash", "rebalance", "broadcast", "global"}[k]
}

// Edge connects a vertex to the vertex that reads its output.
type Edge struct {
	From *Vertex
	Kind PartKind
	// Keys are the column indexes hashed by a Hash edge.
	Keys []int
	// Fires, on an edge out of a source vertex without operators, drops
	// the rows late for the reader's windows on this edge only, as the
	// source's Fires does on all (see SourceSpec.Fires): a source shared
	// by pipelines with windows of other slides, or without windows,
	// drops for each what would be dropped for it alone.
	Fires func(ts int64) int64
}

// SourceSpec makes a vertex a source: it reads Source's splits, computes
// the table's computed columns, tracks each split's watermark and drops
// late rows before the vertex's operator chain.
type SourceSpec struct {
	// UID identifies the source's read positions in checkpoints.
	UID    string
	Table  string
	Source Source
	// Computed, when non-nil, maps the source's physical batch to the
	// table's full schema (physical and computed columns).
	Computed []expr.Expr
	// Schema is the schema after Computed.
	Schema types.Schema
	// Watermark is the table's WATERMARK expression over Schema, or nil.
	Watermark expr.Expr
	// TimeCol is the index of the rowtime column in Schema, or -1.
	TimeCol int
	// Reads names the physical columns the source reads when it reads
	// only the ones the query needs; nil when it reads all of them.
	Reads []string
	// Fires maps a row's event time to the watermark at which the window
	// it belongs to fires: the row is late, and dropped at the source, if
	// Fires(ts) <= the split's watermark. Nil means rows are never late (no
	// event-time operator downstream). It must not decrease as ts grows
	// (a later row's window fires no earlier), which lets the source call
	// it about once per window rather than once per row; an Edge's Fires
	// too.
	Fires func(ts int64) int64
	// IdleTimeout is table.exec.source.idle-timeout: a split without rows
	// for that long is idle, left out of the watermark until it has rows
	// again, and a subtask whose splits are all idle tells its readers so.
	// Zero, the default, waits for every split: results then never depend
	// on timing.
	IdleTimeout time.Duration
	// Align is the source's watermark alignment group, if any.
	Align Alignment
	// Owns, when set, says which splits this process reads: a cluster
	// member reads its share of them (see Members). Nil reads all.
	Owns func(Split) bool
}

// owned returns the splits of spec this process reads, in order.
func (spec *SourceSpec) owned(splits []Split) []Split {
	if spec.Owns == nil {
		return splits
	}
	var out []Split
	for _, s := range splits {
		if spec.Owns(s) {
			out = append(out, s)
		}
	}
	return out
}

// Vertex is one operator chain run as Parallelism subtasks.
type Vertex struct {
	ID          int
	Name        string
	Parallelism int
	// Source is set for source vertices, which have no Inputs.
	Source *SourceSpec
	// Inputs are the edges this vertex reads.
	Inputs []*Edge
	// Ops is the chain, run in one goroutine per subtask.
	Ops []OpSpec
	// Sink, when set, receives the chain's output.
	Sink Sink
	// SinkName is shown in EXPLAIN; SinkUID identifies its pending
	// commits in checkpoints.
	SinkName string
	SinkUID  string
}

// Out is the schema of the vertex's output: its chain's last operator's,
// its source's, or, for a union without operators, its first input's
// (a union's inputs have one schema).
func (v *Vertex) Out() types.Schema {
	if len(v.Ops) > 0 {
		return v.Ops[len(v.Ops)-1].Out
	}
	if v.Source != nil {
		return v.Source.Schema
	}
	if len(v.Inputs) > 0 {
		return v.Inputs[0].From.Out()
	}
	return nil
}

// Graph is a job: vertices in topological order, sources first.
type Graph struct {
	Vertices       []*Vertex
	MaxParallelism int
}

// String renders the physical plan for EXPLAIN.
func (g *Graph) String() string {
	var b strings.Builder
	for _, v := range g.Vertices {
		fmt.Fprintf(&b, "%d: %s [parallelism %d]\n", v.ID, v.Name, v.Parallelism)
		for _, in := range v.Inputs {
			fmt.Fprintf(&b, "   input: %d via %s", in.From.ID, in.Kind)
			if in.Kind == Hash {
				out := in.From.Out()
				keys := make([]string, len(in.Keys))
				for i, k := range in.Keys {
					keys[i] = out[k].Name
				}
				fmt.Fprintf(&b, "[%s]", strings.Join(keys, ", "))
			}
			if in.Fires != nil {
				b.WriteString(", late rows dropped per split")
			}
			b.WriteString("\n")
		}
		if s := v.Source; s != nil {
			fmt.Fprintf(&b, "   source: %s", s.Table)
			if s.Reads != nil {
				fmt.Fprintf(&b, ", reads [%s]", strings.Join(s.Reads, ", "))
			}
			if s.Watermark != nil {
				fmt.Fprintf(&b, ", watermark %s", s.Watermark)
			}
			if s.Fires != nil {
				b.WriteString(", late rows dropped per split")
			}
			if a := s.Align; a.Group != "" {
				fmt.Fprintf(&b, ", watermark alignment group '%s' max drift %s", a.Group, time.Duration(a.MaxDrift)*time.Millisecond)
			}
			b.WriteString("\n")
		}
		for _, op := range v.Ops {
			fmt.Fprintf(&b, "   -> %s\n", op.Name)
		}
		if v.Sink != nil {
			fmt.Fprintf(&b, "   -> sink: %s\n", v.SinkName)
		}
	}
	return b.String()
}
