package rank

import (
	"fmt"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
)

// topnKey is the key of the rows a ranking operator keeps (exec.RowKey):
// the window_end of a window Top-N's rows first, the partition, the
// ORDER BY, then every other column.
type topnKey = exec.RowKey

// SortKey is one ORDER BY column.
type SortKey = exec.SortKey

// newTopNKey lays out the key of a window Top-N's rows.
func newTopNKey(spec *WindowSpec) (*topnKey, error) {
	return exec.NewRowKey(spec.In, spec.WindowEnd, spec.Partition, spec.Order)
}

// newKey lays out the key of rows outside windows (lead -1).
var newKey = exec.NewRowKey

// windowEnd reads the window_end a key starts with.
func windowEnd(key []byte) (int64, error) {
	v, null, _, err := memseg.DecodeInt64(key, memseg.Order{})
	if err == nil && null {
		err = fmt.Errorf("%w: NULL window_end", memseg.ErrCorrupt)
	}
	return v, err
}
