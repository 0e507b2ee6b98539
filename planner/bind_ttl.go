package planner

import (
	"sort"
	"strings"

	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// ttlOption is one 'input' = 'duration' of a STATE_TTL hint.
type ttlOption struct {
	name   string
	millis int64
	at     parser.Pos
	used   bool
}

// stateTTLHint is a /*+ STATE_TTL('o' = '1d', 'c' = '12h') */ of a
// SELECT, as Flink 1.18's: per input of the SELECT's regular join, named
// by its table name or alias (a view's or WITH query's name), or for its
// group aggregate the one input's, a TTL that overrides
// table.exec.state.ttl for that input's state.
type stateTTLHint struct {
	opts []*ttlOption
	at   parser.Pos
}

const stateTTLForm = "STATE_TTL takes 'input' = 'duration' pairs naming the inputs of the SELECT's join or group aggregate, as in /*+ STATE_TTL('o' = '1d', 'c' = '12h') */"

// parseStateTTL reads the options of a STATE_TTL hint.
func parseStateTTL(h *parser.Hint) (*stateTTLHint, error) {
	if len(h.Options) == 0 {
		return nil, errorf(h.Start, ErrHint, "%s", stateTTLForm)
	}
	out := &stateTTLHint{at: h.Start}
	for _, o := range h.Options {
		v, ok := o.Value.(*parser.StringLit)
		if !ok || o.Key == nil {
			return nil, errorf(o.Start, ErrHint, "%s", stateTTLForm)
		}
		var key string
		switch k := o.Key.(type) {
		case *parser.StringLit:
			key = k.Value
		case *parser.Ident:
			key = identName(k)
		}
		for _, p := range out.opts {
			if strings.EqualFold(p.name, key) {
				return nil, errorf(o.Start, ErrHint, "STATE_TTL names '%s' twice (also at %s)", key, p.at)
			}
		}
		d, err := types.ParseDuration(v.Value)
		if err != nil || d < 0 {
			return nil, errorf(v.Start, ErrHint, "STATE_TTL '%s' = '%s': not a duration such as '1d', '12h' or '0' (never expires)", key, v.Value)
		}
		out.opts = append(out.opts, &ttlOption{name: key, millis: d.Milliseconds(), at: o.Start})
	}
	return out, nil
}

// relName is the name a STATE_TTL hint knows an input by: the table
// name or alias its columns are qualified with, if they all share one.
func relName(s *scope) string {
	name := ""
	for i, c := range s.cols[s.shadowed:] {
		if i > 0 && !strings.EqualFold(c.qual, name) {
			return ""
		}
		name = c.qual
	}
	return name
}

// applyStateTTL gives the regular joins and the group aggregate the SELECT
// being bound defines the TTLs its hint names their inputs with; an
// option that names no input of them, or a SELECT with neither, is an
// error.
func (b *binder) applyStateTTL(h *stateTTLHint) error {
	find := func(name string) *ttlOption {
		for _, o := range h.opts {
			if name != "" && strings.EqualFold(o.name, name) {
				o.used = true
				return o
			}
		}
		return nil
	}
	var inputs []string
	some := false
	for _, m := range b.made {
		switch n := m.node.(type) {
		case *Join:
			if n.Interval != nil || n.Window != nil {
				continue
			}
			some = true
			for side, name := range n.names {
				if o := find(name); o != nil {
					n.TTLHint[side] = ttlHint{Millis: o.millis, Set: true}
				}
				inputs = append(inputs, name)
			}
		case *GroupAgg:
			some = true
			if o := find(n.inName); o != nil {
				n.TTLHint = ttlHint{Millis: o.millis, Set: true}
			}
			inputs = append(inputs, n.inName)
		}
	}
	if !some {
		return errorf(h.at, ErrHint, "STATE_TTL sets the state TTL of a regular join or a group aggregate, and this SELECT defines neither")
	}
	var named []string
	for _, in := range inputs {
		if in != "" {
			named = append(named, "'"+in+"'")
		}
	}
	sort.Strings(named)
	for _, o := range h.opts {
		if o.used {
			continue
		}
		if len(named) == 0 {
			return errorf(o.at, ErrHint, "STATE_TTL '%s' names no input: the inputs of this SELECT's join or group aggregate have no table name or alias", o.name)
		}
		return errorf(o.at, ErrHint, "STATE_TTL '%s' names no input of this SELECT's join or group aggregate (%s)", o.name, strings.Join(named, ", "))
	}
	return nil
}

// carryRowtime reports whether a group aggregate bound now takes its
// input's rowtime along as its TTL clock: when a TTL may apply to it.
func (b *binder) carryRowtime() bool { return b.cat.StateTTL > 0 || b.ttlHinted }
