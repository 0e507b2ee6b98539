package connector

import (
	"fmt"
	"io"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// Table is what the planner knows of a CREATE TABLE: the columns the
// connector reads or writes (computed columns are the planner's job), in
// declaration order, and WITH options.
type Table struct {
	Name   string
	Schema types.Schema
	// Metadata holds, per column of Schema, the metadata key the column
	// reads (METADATA [FROM 'key']), "" for a physical column; nil when
	// the table has no metadata column.
	Metadata []string
	// Partitions names the PARTITIONED BY columns, in declared order.
	Partitions []string
	// PrimaryKey names the PRIMARY KEY's columns, in declared order; nil
	// without one. upsert-kafka requires one: it is the record key.
	PrimaryKey []string
	Options    map[string]string
	// Read says, per column of Schema, whether the query reads it; nil
	// reads them all. Only for a Prunable table: its source then returns
	// the columns read, in order, and nothing of the others.
	Read []bool
	// Equal holds columns that the query's filter requires to equal an
	// integer (WHERE event_type = 2): a source may skip the rows that do
	// not, since the filter drops them anyway. Only for a Prunable table.
	Equal map[string]int64
}

// ColumnError is an invalid column of a table for its connector: a
// metadata key the connector does not have, or a column it cannot write.
type ColumnError struct {
	// Column names the column, Msg is the whole sentence.
	Column string
	Msg    string
	// AtKey says the metadata key is at fault, not the column;
	// Partition that the column is named by PARTITIONED BY.
	AtKey, Partition bool
}

func (e *ColumnError) Error() string { return e.Msg }

// Unwrap makes errors.Is(err, ErrOption) hold.
func (e *ColumnError) Unwrap() error { return ErrOption }

// Env carries what a connector needs from the run.
type Env struct {
	// Stdout receives the print sink's rows.
	Stdout io.Writer
	// JobID is unique per run; part-file names include it so that runs
	// never overwrite each other's output.
	JobID string
	// Job names the job across runs (for example a query file's name). It
	// is set when the job checkpoints: part files then carry the job's
	// name and the checkpoint that committed them, so that a restore can
	// tell which visible files its replay would write again.
	Job string
	// Members is this process's share of a job several run: a kafka
	// sink's transactional ids carry the member, so that members do not
	// fence each other.
	Members exec.Members
}

// connectors lists the connector names, sorted, for error messages.
var connectors = []string{"blackhole", "datagen", "filesystem", "kafka", "nexmark", "print", "upsert-kafka"}

// NewSource returns the source of table t.
func NewSource(t Table) (exec.Source, error) {
	conn, err := connectorOf(t, true)
	if err != nil {
		return nil, err
	}
	if err := checkColumns(t, conn, true); err != nil {
		return nil, err
	}
	switch conn {
	case "filesystem":
		c, err := parseFilesystem(t)
		if err != nil {
			return nil, err
		}
		return newFileSource(t, c), nil
	case "kafka", "upsert-kafka":
		c, err := parseKafka(t)
		if err != nil {
			return nil, err
		}
		if c.discovery > 0 {
			return discoveringKafka{newKafkaSource(t, c)}, nil
		}
		return newKafkaSource(t, c), nil
	case "nexmark":
		if t.Read != nil {
			var read types.Schema
			for i, f := range t.Schema {
				if t.Read[i] {
					read = append(read, f)
				}
			}
			t.Schema = read
		}
		c, err := parseNexmark(t)
		if err != nil {
			return nil, err
		}
		return newNexSource(t.Schema, c), nil
	default: // datagen; connectorOf refused the rest
		c, err := parseDatagen(t)
		if err != nil {
			return nil, err
		}
		return newGenSource(t.Schema, c), nil
	}
}

// Prunable reports whether the source of t may read only some of the
// table's columns (Table.Read): nexmark, whose columns are computed on
// their own, and filesystem, whose decoders skip the columns not read (a
// value there is then not parsed, so it cannot make the row malformed, as
// in Flink's file formats under projection pushdown). A datagen sequence
// may bound the table, so datagen reads every column.
func Prunable(t Table) bool {
	return t.Options["connector"] == "nexmark" || t.Options["connector"] == "filesystem"
}

// NewSink returns the sink of table t.
func NewSink(t Table, env Env) (exec.Sink, error) {
	conn, err := connectorOf(t, false)
	if err != nil {
		return nil, err
	}
	if err := checkColumns(t, conn, false); err != nil {
		return nil, err
	}
	switch conn {
	case "filesystem":
		c, err := parseFilesystem(t)
		if err != nil {
			return nil, err
		}
		if err := checkCommit(c.commit, t.Partitions); err != nil {
			return nil, err
		}
		if err := c.dbz.checkWrite(""); err != nil {
			return nil, err
		}
		if env.JobID == "" {
			return nil, fmt.Errorf("connector: filesystem sink of table %s needs a job id", t.Name)
		}
		return &fileSink{cfg: c, schema: t.Schema, jobID: env.JobID, job: env.Job, parts: t.Partitions}, nil
	case "kafka", "upsert-kafka":
		c, err := parseKafka(t)
		if err == nil {
			err = checkKafkaSink(c, t)
		}
		if err != nil {
			return nil, err
		}
		c.txnPrefix += env.Members.Suffix()
		return newKafkaSink(t, c), nil
	case "print":
		id, err := parsePrint(t)
		if err != nil {
			return nil, err
		}
		if env.Stdout == nil {
			return nil, fmt.Errorf("connector: print sink of table %s has no output", t.Name)
		}
		return &printSink{out: env.Stdout, prefix: id}, nil
	default: // blackhole
		if err := parseBlackhole(t); err != nil {
			return nil, err
		}
		return blackhole{}, nil
	}
}

// Validate checks t's options (unknown keys, bad values, missing required
// ones) for use as a source or as a sink, without touching any file.
func Validate(t Table, asSource bool) error {
	conn, err := connectorOf(t, asSource)
	if err != nil {
		return err
	}
	if err := checkColumns(t, conn, asSource); err != nil {
		return err
	}
	switch conn {
	case "filesystem":
		var c fsConfig
		if c, err = parseFilesystem(t); err == nil && !asSource {
			err = c.dbz.checkWrite("")
		}
	case "datagen":
		_, err = parseDatagen(t)
	case "kafka", "upsert-kafka":
		var c kafkaConfig
		if c, err = parseKafka(t); err == nil && !asSource {
			err = checkKafkaSink(c, t)
		}
	case "nexmark":
		_, err = parseNexmark(t)
	case "print":
		_, err = parsePrint(t)
	case "blackhole":
		err = parseBlackhole(t)
	}
	if err == nil && conn != "print" && conn != "blackhole" {
		_, err = Alignment(t)
	}
	return err
}

// connectorOf returns t's connector name after checking that it exists and
// can be used in the requested direction.
func connectorOf(t Table, asSource bool) (string, error) {
	conn, ok := t.Options["connector"]
	if !ok {
		return "", &OptionError{Key: "connector", Msg: fmt.Sprintf("missing required option 'connector' for table %s", t.Name), Valid: connectors, what: "connectors"}
	}
	var source, sink bool
	switch conn {
	case "filesystem", "kafka", "upsert-kafka":
		source, sink = true, true
	case "datagen", "nexmark":
		source = true
	case "print", "blackhole":
		sink = true
	default:
		return "", &OptionError{Key: "connector", Msg: fmt.Sprintf("unknown connector '%s'", conn), Valid: connectors, what: "connectors"}
	}
	if asSource && !source {
		return "", &OptionError{Key: "connector", Msg: fmt.Sprintf("connector '%s' can only be used as a sink, not to read table %s", conn, t.Name)}
	}
	if !asSource && !sink {
		return "", &OptionError{Key: "connector", Msg: fmt.Sprintf("connector '%s' can only be used as a source, not to write table %s", conn, t.Name)}
	}
	return conn, nil
}
