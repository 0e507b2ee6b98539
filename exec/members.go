package exec

import "fmt"

// Members says which share of a job this process runs when several
// strand processes run the same query (strand run --members N
// --member I): Kafka partitions are the unit of scale, each member reads
// the splits whose index is its own modulo Count and runs the whole
// pipeline on them, and a keyed operator whose key the splits are not
// partitioned by gets its rows through a repartition topic, from which
// each member reads the partitions of the key groups it owns. The zero
// value, like Count 1, is one process that runs everything.
type Members struct {
	Index, Count int
}

// Many reports whether the job is shared by several processes.
func (m Members) Many() bool { return m.Count > 1 }

// OwnsSplit reports whether this member reads split s of a source.
func (m Members) OwnsSplit(s Split) bool { return !m.Many() || s.Index%m.Count == m.Index }

// OwnsKeyGroup reports whether this member owns key group kg of maxPar:
// contiguous ranges, as Flink assigns key groups to subtasks.
func (m Members) OwnsKeyGroup(kg, maxPar int) bool {
	return !m.Many() || Subtask(kg, maxPar, m.Count) == m.Index
}

// Suffix tells this member's names (its checkpoints, its transactional
// ids) from the others': "-m<index>", or "" for a single process.
func (m Members) Suffix() string {
	if !m.Many() {
		return ""
	}
	return fmt.Sprintf("-m%d", m.Index)
}
