package exec

import (
	"fmt"
	"path/filepath"

	"github.com/strandsql/strand/checkpoint"
)

// snapshot takes the synchronous part of checkpoint id for every stateful
// operator of the chain, in chain order.
func (c *chain) snapshot(id int64) ([]OperatorSnapshot, error) {
	var out []OperatorSnapshot
	for i, op := range c.ops {
		if s, ok := op.(Snapshotter); ok {
			sn, err := s.Snapshot(id)
			if err != nil {
				for _, o := range out {
					if o.State != nil {
						o.State.Discard()
					}
				}
				return nil, fmt.Errorf("%s: %w", c.names[i], err)
			}
			out = append(out, sn)
		}
	}
	return out, nil
}

// takeCheckpoint is what every subtask does when barrier b has reached it
// (aligned on every input, for a task with inputs): snapshot the chain,
// pass the barrier on (or pre-commit, at a sink), and acknowledge, the
// state uploads running in the background. src is a source subtask's read
// positions. An error is returned only when the barrier cannot be passed
// on; a failed snapshot declines the checkpoint instead.
func takeCheckpoint(coord *coordinator, subtask int, b checkpoint.Barrier, c *chain, out output, src *checkpoint.SourceState) error {
	if err := c.prepareBarrier(); err != nil {
		return err
	}
	snaps, err := c.snapshot(b.ID)
	if err != nil {
		coord.send(ack{id: b.ID, err: err})
		// The barrier still goes on, so downstream tasks do not wait for it.
		_, ferr := out.barrier(b)
		return ferr
	}
	sink, err := out.barrier(b)
	if err != nil {
		return err
	}
	sp := coord.savepoint(b.ID)
	coord.uploads.Add(1)
	go func() {
		defer coord.uploads.Done()
		a := ack{id: b.ID, subtask: subtask, source: src, sink: sink}
		for _, sn := range snaps {
			st := checkpoint.SubtaskState{Index: subtask, KeyGroupLo: sn.KeyGroupLo, KeyGroupHi: sn.KeyGroupHi}
			if sn.State != nil {
				if a.err != nil {
					sn.State.Discard()
					continue
				}
				if sp != nil {
					// A savepoint holds state in strand's own format, in its
					// own directory.
					name := fmt.Sprintf("%s-%d.state", sn.UID, subtask)
					ref, err := sn.State.Export(filepath.Join(sp.tmp, name), sn.UID)
					if err != nil {
						a.err = fmt.Errorf("exporting %s state: %w", sn.UID, err)
						continue
					}
					ref.Path, ref.Name = name, name
					st.Data = &ref
				} else {
					h, err := sn.State.Upload(coord.cfg.Storage)
					if err != nil {
						a.err = fmt.Errorf("uploading %s state: %w", sn.UID, err)
						continue
					}
					st.Handle = h
				}
			}
			a.ops = append(a.ops, opAck{uid: sn.UID, fingerprint: sn.Fingerprint, state: st})
		}
		coord.send(a)
	}()
	return nil
}
