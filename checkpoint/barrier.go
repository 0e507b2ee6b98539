package checkpoint

import "fmt"

// Kind says whether a barrier belongs to a periodic checkpoint or to a
// savepoint a user asked for.
type Kind uint8

// Barrier kinds.
const (
	Periodic Kind = iota
	Savepoint
)

func (k Kind) String() string {
	if k == Savepoint {
		return "savepoint"
	}
	return "checkpoint"
}

// Barrier marks a cut through the stream: checkpoint ID's state includes
// everything before it.
type Barrier struct {
	ID   int64
	Kind Kind
	// Stop ends the job once savepoint ID is complete; Drain, with Stop,
	// first advances every watermark to the end of time, so that every
	// window fires before the savepoint.
	Stop, Drain bool
}

func (b Barrier) String() string { return fmt.Sprintf("%v %d", b.Kind, b.ID) }
