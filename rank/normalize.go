package rank

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// Normalize is Flink's ChangelogNormalize: it turns the upserts of a
// keyed source (upsert-kafka: a record replaces the row of its key, a
// tombstone deletes it) into a changelog whose retractions carry whole
// rows. It keeps the last row of each key: a key's first row is +I, a
// different row -U of the kept one and +U of the new, a row equal to the
// kept one nothing (Flink drops such no-op updates too), and a deletion -D
// of the kept row (the deletion itself may carry only the key, as a
// tombstone does); a deletion of a key without a row is dropped. It is a
// deduplication keeping the last row by arrival, as Flink implements it,
// so it sits in this package: the state is an entry per key (key group of
// the key, the key the hash exchange in front routes by) holding the row
// as its topnKey after its TTL stamp, checkpointed, restored and rescaled
// as Dedup's, and expired as Dedup's (a key whose row expired starts
// again with +I; a deletion of it is dropped).
type Normalize struct {
	spec  NormalizeSpec
	key   *topnKey
	state keyed
	out   *changes
	buf   []byte
	val   []byte
	expiring
}

// NormalizeSpec is a ChangelogNormalize over rows In keyed by Key.
type NormalizeSpec struct {
	UID string
	In  types.Schema
	Key []int
	// TTL is the state's time-to-live and clock; not part of the
	// fingerprint, so a restore may change it.
	TTL exec.StateTTL
}

// normalizeFormat versions the state layout.
const normalizeFormat = "normalize/2"

// lastName names the state: per key, the key's last row.
const lastName = "last"

// Fingerprint identifies the layout of the state: the rows' columns and
// the key.
func (s *NormalizeSpec) Fingerprint() string {
	var b strings.Builder
	b.WriteString(normalizeFormat + "\n")
	for _, f := range s.In {
		fmt.Fprintf(&b, "col %s\n", f.Type.Plain().Nullable())
	}
	fmt.Fprintf(&b, "key %v\n", s.Key)
	return fmt.Sprintf("normalize;%016x", memseg.Hash([]byte(b.String())))
}

// NewNormalize checks spec and returns the operator; it is an OpSpec's
// constructor.
func NewNormalize(spec NormalizeSpec) (*Normalize, error) {
	if len(spec.Key) == 0 {
		return nil, fmt.Errorf("changelog normalize: no key")
	}
	k, err := newKey(spec.In, -1, spec.Key, nil)
	if err != nil {
		return nil, err
	}
	return &Normalize{spec: spec, key: k}, nil
}

// Open implements exec.Opener.
func (n *Normalize) Open(ctx *exec.TaskContext) error {
	n.out = newChanges(ctx.Alloc, n.key, n.spec.In, n.spec.In, ctx.BatchSize)
	if err := n.state.open(ctx, n.spec.UID, n.spec.Fingerprint(), lastName); err != nil {
		return err
	}
	return n.openTTL(ctx, &n.state, n.spec.TTL, lastName)
}

// OnWatermark implements exec.WatermarkHandler: by event time, each
// advance of the watermark sweeps expired keys.
func (n *Normalize) OnWatermark(wm int64, _ exec.Emitter) error {
	return n.watermarkTTL(&n.state, wm)
}

// Process implements exec.Operator.
func (n *Normalize) Process(b arrow.RecordBatch, out exec.Emitter) error {
	if err := n.key.Bind(b); err != nil {
		return err
	}
	if err := n.bindTTL(&n.state, b); err != nil {
		return err
	}
	if err := n.out.bind(b); err != nil {
		return err
	}
	defer n.out.unbind()
	kinds := exec.Kinds(b)
	w, uid := n.state.writes, n.spec.UID
	for r := range int(b.NumRows()) {
		var p int
		n.buf, p = n.key.AppendSplit(n.buf[:0], r)
		part := n.buf[:p]
		kg := n.state.group(part)
		old, found, err := w.Get(uid, kg, lastName, part)
		if err != nil {
			return err
		}
		old, at, ok, err := n.read(old, found, r)
		if err != nil {
			return err
		}
		if kinds != nil && kinds[r].Retracts() {
			if ok {
				if err := n.out.add(exec.Delete, old, 0, out); err != nil {
					return err
				}
			}
			if found {
				w.Delete(uid, kg, lastName, part)
				n.state.gauge.Keys(-1)
			}
			continue
		}
		if !found {
			n.state.gauge.Keys(1)
		}
		switch {
		case !ok:
			err = n.out.addInput(exec.Insert, r, out)
		case bytes.Equal(old, n.buf) && !n.clock.TTL.On():
			continue
		case bytes.Equal(old, n.buf):
			// Nothing changes, but the write keeps the key live, as
			// Flink's ChangelogNormalize refreshes its TTL.
		default:
			if err = n.out.add(exec.UpdateBefore, old, 0, out); err == nil {
				err = n.out.addInput(exec.UpdateAfter, r, out)
			}
		}
		if err != nil {
			return err
		}
		n.val = append(n.stamp(n.val[:0], at, r), n.buf...)
		w.Set(uid, kg, lastName, part, n.val)
		if err := n.state.commitSome(); err != nil {
			return err
		}
	}
	if err := n.out.flush(out); err != nil {
		return err
	}
	n.state.gauge.Measure()
	return w.Commit()
}

// Snapshot implements exec.Snapshotter.
func (n *Normalize) Snapshot(id int64) (exec.OperatorSnapshot, error) { return n.state.snapshot(id) }

// Close implements exec.Closer.
func (n *Normalize) Close() error {
	if n.out != nil {
		n.out.release()
	}
	return n.state.close()
}
