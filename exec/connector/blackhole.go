package connector

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

func parseBlackhole(t Table) error {
	o := &opts{conn: "blackhole", m: t.Options}
	return o.checkKeys([]string{"connector"}, nil)
}

// blackhole discards every row: for benchmarks that measure a query
// without the cost of its output.
type blackhole struct{}

func (blackhole) Open(types.Schema, int, int) (exec.SinkWriter, error) { return blackhole{}, nil }

func (blackhole) Write(arrow.RecordBatch) error { return nil }

func (blackhole) Close() error { return nil }

func (blackhole) Abort() error { return nil }
