package planner

import (
	"fmt"
	"regexp"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/connector"
	"github.com/strandsql/strand/parser"
)

// Several strand processes, the members, can run one query (strand run
// --members N --member I). Kafka partitions are the unit of scale: each
// member reads its share of every source's splits (exec.Members) and runs
// the whole pipeline on them. A keyed window aggregate needs the rows of
// a key in one member, which the splits do not promise, so its rows go
// through a repartition topic (connector.Repartition): each member writes
// its rows to the partitions of their key groups and reads back the
// partitions of the key groups it owns. Other keyed operators are refused
// when there are several members.

// share makes the scan spec of table t read this member's splits, and
// keeps t's options for a repartition topic's brokers.
func (c *compiler) share(spec *exec.SourceSpec, t *Table) {
	if !c.env.Members.Many() {
		return
	}
	spec.Owns = c.env.Members.OwnsSplit
	if c.options == nil {
		c.options = map[*exec.SourceSpec]map[string]string{}
	}
	c.options[spec] = t.Options
}

// unsafeTopic matches what a topic name may not hold.
var unsafeTopic = regexp.MustCompile(`[^a-zA-Z0-9._-]`)

// repartition ends stage s in the writer of a repartition topic for the
// operator uid keyed by keys, and returns the stage that reads this
// member's key groups back. The topic's brokers are those of the kafka
// table s reads.
func (c *compiler) repartition(s *stage, keys []int, uid string, at parser.Pos) (*stage, error) {
	opts := c.options[s.src]
	if opts == nil || (opts["connector"] != "kafka" && opts["connector"] != "upsert-kafka") {
		return nil, errorf(at, ErrUnsupported, "a keyed window aggregate run by several members (--members) must read a kafka table directly: its rows are shuffled through a repartition topic on that table's brokers")
	}
	topic := unsafeTopic.ReplaceAllString(fmt.Sprintf("strand-%s-%s-repartition", c.env.Shared, uid), "_")
	rp, err := connector.NewRepartition(connector.RepartitionConfig{Props: opts, Topic: topic, Schema: plain(s.schema), Keys: keys,
		Partitions: exec.DefaultMaxParallelism, Members: c.env.Members, Bounded: s.src.Source.Bounded()})
	if err != nil {
		return nil, errorf(at, ErrOption, "%v", err)
	}
	if len(s.v.Ops) == 0 {
		if err := c.calc(s, nil, nil, s.schema); err != nil {
			return nil, err
		}
	}
	s.v.Sink, s.v.SinkName, s.v.SinkUID = rp.Sink(), topic, "repartition-"+uid
	v := c.vertex("Source: " + topic)
	v.Source = &exec.SourceSpec{UID: "repartition-" + uid, Table: topic, Source: rp.Source(), Schema: s.schema, TimeCol: -1, Owns: rp.Owns}
	if c.repartitioned == nil {
		c.repartitioned = map[*exec.Vertex]bool{}
	}
	c.repartitioned[v] = true
	return &stage{v: v, schema: s.schema}, nil
}

// keyedBy marks v, keyed behind stage s, as fed by a repartition topic
// when s reads one: its keyed exchange is within the member.
func (c *compiler) keyedBy(v *exec.Vertex, s *stage) {
	if c.repartitioned[s.v] {
		c.repartitioned[v] = true
	}
}

// checkMembers refuses, with several members, a keyed exchange that no
// repartition topic feeds: a key's rows would be split among members.
func (c *compiler) checkMembers() error {
	if !c.env.Members.Many() {
		return nil
	}
	for _, v := range c.vertices {
		for _, in := range v.Inputs {
			if in.Kind != exec.Forward && in.Kind != exec.Rebalance && !c.repartitioned[v] {
				return fmt.Errorf("%w: %s is keyed (%s exchange), and strand shuffles rows across members (--members) only for window aggregates, through a repartition topic", ErrUnsupported, v.Name, in.Kind)
			}
		}
	}
	return nil
}
