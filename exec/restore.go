package exec

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/state"
)

// ErrUnmapped is returned when a restore point holds state that the job
// cannot take back: state of an operator, source or sink the job does not
// have, or whose schema or key groups differ from the job's. The start is
// refused unless the run allows non-restored state.
var ErrUnmapped = errors.New("state cannot be mapped to the job")

// ErrIncompatible is returned when checkpointed state does not fit the job
// being restored.
var ErrIncompatible = errors.New("incompatible checkpoint")

// Match is the outcome of matching every piece of state of a restore point
// to the job that is to start from it, by uid, then by state schema
// fingerprint and number of key groups.
type Match struct {
	// Restored lists the uids whose state the job takes back.
	Restored []string
	// Empty lists the job's stateful operators and sources that have no
	// state in the restore point: they start empty.
	Empty []string
	// Unmapped is the state the job cannot take back.
	Unmapped []Unmapped

	ops     map[string]*checkpoint.OperatorState
	sources map[string]bool
}

// Unmapped is one piece of state that the job cannot take back, and why.
type Unmapped struct {
	UID    string
	Reason string
}

func (u Unmapped) String() string { return u.UID + ": " + u.Reason }

// MatchState matches md's state to g. It never fails: what does not match
// is in the result, for Err to refuse or for a caller that allows
// non-restored state to report.
func MatchState(g *Graph, md *checkpoint.Metadata) *Match {
	m := &Match{ops: map[string]*checkpoint.OperatorState{}, sources: map[string]bool{}}
	maxPar := g.MaxParallelism
	if maxPar <= 0 {
		maxPar = DefaultMaxParallelism
	}
	ops, sources, sinks := map[string]*OpSpec{}, map[string]*SourceSpec{}, map[string]bool{}
	for _, v := range g.Vertices {
		for i := range v.Ops {
			if op := &v.Ops[i]; op.UID != "" {
				ops[op.UID] = op
			}
		}
		if v.Source != nil {
			sources[v.Source.UID] = v.Source
		}
		if _, ok := v.Sink.(Committer); ok && v.SinkUID != "" {
			sinks[v.SinkUID] = true
		}
	}
	seen := map[string]bool{}
	for i := range md.Operators {
		st := &md.Operators[i]
		seen[st.UID] = true
		op := ops[st.UID]
		switch {
		case op == nil:
			m.Unmapped = append(m.Unmapped, Unmapped{st.UID, "no operator of the job has this uid"})
		case op.Fingerprint != "" && !fingerprintReads(op.Fingerprint, st.Fingerprint):
			m.Unmapped = append(m.Unmapped, Unmapped{st.UID, fmt.Sprintf("%s: state schema %s, the job needs %s", op.Name, st.Fingerprint, op.Fingerprint)})
		case st.MaxParallelism != maxPar:
			m.Unmapped = append(m.Unmapped, Unmapped{st.UID, fmt.Sprintf("%s: %d key groups, the job has %d", op.Name, st.MaxParallelism, maxPar)})
		default:
			m.ops[st.UID] = st
			m.Restored = append(m.Restored, st.UID)
		}
	}
	for _, s := range md.Sources {
		seen[s.UID] = true
		if spec := sources[s.UID]; spec != nil {
			m.sources[s.UID] = true
			m.Restored = append(m.Restored, s.UID)
			if gone := goneSplits(spec, s); len(gone) > 0 {
				m.Unmapped = append(m.Unmapped, Unmapped{s.UID, "read positions of splits the source no longer has: " + strings.Join(gone, ", ")})
			}
		} else {
			m.Unmapped = append(m.Unmapped, Unmapped{s.UID, "read positions of a source the job does not read"})
		}
	}
	for _, s := range md.Sinks {
		seen[s.UID] = true
		switch {
		case !sinks[s.UID] && len(s.Pending) > 0:
			m.Unmapped = append(m.Unmapped, Unmapped{s.UID, fmt.Sprintf("%d pre-committed files of a sink the job does not write", len(s.Pending))})
		case sinks[s.UID]:
			m.Restored = append(m.Restored, s.UID)
		}
	}
	for uid := range ops {
		if !seen[uid] && ops[uid].Fingerprint != "" {
			m.Empty = append(m.Empty, uid)
		}
	}
	for uid := range sources {
		if !seen[uid] {
			m.Empty = append(m.Empty, uid)
		}
	}
	slices.Sort(m.Restored)
	slices.Sort(m.Empty)
	slices.SortFunc(m.Unmapped, func(a, b Unmapped) int { return strings.Compare(a.UID, b.UID) })
	return m
}

// fingerprintReads reports whether an operator of state schema
// fingerprint need takes back state of schema have: the same schema, or,
// when need carries agg.ExactFloatSums, need without it: that state was
// written before FLOAT and DOUBLE sums were exact, each sum a count and a
// double, which the exact accumulators read. The converse is refused: an
// operator without the mark (a strand from before exact sums compares
// exactly, as this does for other schemas) cannot read exact sums.
func fingerprintReads(need, have string) bool {
	if have == need {
		return true
	}
	base, ok := strings.CutSuffix(need, agg.ExactFloatSums)
	return ok && have == base
}

// goneSplits lists the splits of st that the job's source spec does not
// have: their read positions cannot be mapped. A source that cannot list
// its splits now fails its task with the reason, so nothing is listed.
func goneSplits(spec *SourceSpec, st checkpoint.SourceState) []string {
	splits, err := spec.Source.Splits()
	if err != nil {
		return nil
	}
	has := map[string]bool{}
	for _, sp := range splits {
		has[sp.ID] = true
	}
	var gone []string
	for _, sp := range st.Splits {
		if !has[sp.ID] {
			gone = append(gone, sp.ID)
		}
	}
	return gone
}

// Err refuses the start when some state cannot be mapped, naming every
// piece of it, with an error marked ErrPermanent; nil when all of it can.
func (m *Match) Err() error {
	if len(m.Unmapped) == 0 {
		return nil
	}
	lines := make([]string, len(m.Unmapped))
	for i, u := range m.Unmapped {
		lines[i] = "  " + u.String()
	}
	return Permanent(fmt.Errorf("%w (start with --allow-non-restored-state to drop it):\n%s", ErrUnmapped, strings.Join(lines, "\n")))
}

// RestoreView is the state one operator subtask takes back from a restore
// point: its own uid's entries, in its own key groups, from every old
// subtask whose key groups overlap them, whatever the old parallelism was.
// Operators read their state through it and never open checkpoint files
// themselves.
type RestoreView struct {
	cp      *Checkpointing
	op      *checkpoint.OperatorState
	subtask int
	lo, hi  uint16
}

// ID is the id of the checkpoint or savepoint being restored.
func (r *RestoreView) ID() int64 { return r.cp.Restore.ID }

// Scan calls fn for each of the subtask's entries of state name ("" for
// every name) in key-group order, then key order within each old subtask.
// An error that refuses the state by design (refused), fn's included, is
// marked ErrPermanent: a restart would meet it again.
func (r *RestoreView) Scan(name string, fn state.ScanFunc) error {
	return refused(r.scan(name, fn), r.cp.SavepointDir != "")
}

func (r *RestoreView) scan(name string, fn state.ScanFunc) error {
	for _, st := range r.op.Subtasks {
		lo, hi := max(int(r.lo), st.KeyGroupLo), min(int(r.hi), st.KeyGroupHi)
		if lo > hi {
			continue
		}
		if st.Data != nil {
			if err := r.scanData(*st.Data, uint16(lo), uint16(hi), name, fn); err != nil {
				return fmt.Errorf("restoring %s: %w", r.op.UID, err)
			}
			continue
		}
		dir := filepath.Join(r.cp.WorkDir, fmt.Sprintf("%s-%d-restore", r.op.UID, r.subtask))
		rd, err := state.OpenHandle(r.cp.FS, r.cp.Storage, st.Handle, dir)
		if err != nil {
			return fmt.Errorf("restoring %s: %w", r.op.UID, err)
		}
		err = rd.Scan(r.op.UID, uint16(lo), uint16(hi), name, fn)
		if cerr := rd.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("restoring %s: %w", r.op.UID, err)
		}
	}
	return nil
}

// scanData scans a savepoint's state file.
func (r *RestoreView) scanData(ref state.FileRef, lo, hi uint16, name string, fn state.ScanFunc) error {
	f, err := checkpoint.OpenData(r.cp.SavepointDir, ref)
	if err != nil {
		return err
	}
	defer f.Close()
	return state.ReadExport(f, filepath.Join(r.cp.SavepointDir, ref.Path), lo, hi, name, fn)
}

// Restored returns the state operator uid, of state schema fingerprint,
// restores into this subtask's key groups [lo, hi], or nil when the job
// starts it empty: no restore, no state of that uid, or state dropped as
// non-restored. A task that Run started has matched the whole job already
// (MatchState); one started otherwise, as by a test driving an operator,
// checks this operator's state alone, refusing state of another schema or
// key-group count with ErrIncompatible, marked ErrPermanent.
func (tc *TaskContext) Restored(uid, fingerprint string, lo, hi int) (*RestoreView, error) {
	cp := tc.Checkpoint
	if cp == nil || cp.Restore == nil {
		return nil, nil
	}
	var op *checkpoint.OperatorState
	if tc.match != nil {
		op = tc.match.ops[uid]
	} else {
		for i := range cp.Restore.Operators {
			if st := &cp.Restore.Operators[i]; st.UID == uid {
				op = st
			}
		}
		if op != nil && !fingerprintReads(fingerprint, op.Fingerprint) {
			return nil, Permanent(fmt.Errorf("%w: operator %s: checkpointed state has schema %s, the query needs %s", ErrIncompatible, uid, op.Fingerprint, fingerprint))
		}
		if op != nil && op.MaxParallelism != tc.MaxParallelism {
			return nil, Permanent(fmt.Errorf("%w: operator %s: checkpointed with %d key groups, the job has %d", ErrIncompatible, uid, op.MaxParallelism, tc.MaxParallelism))
		}
	}
	if op == nil {
		return nil, nil
	}
	return &RestoreView{cp: cp, op: op, subtask: tc.Subtask, lo: uint16(max(lo, 0)), hi: uint16(min(hi, math.MaxUint16))}, nil
}
