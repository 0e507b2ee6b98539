package connector

import "fmt"

// Changelog is the kind of stream a table's connector reads or writes, as
// the changelog mode of Flink's DynamicTableSource and DynamicTableSink.
type Changelog uint8

const (
	// Appends is a stream of insertions only.
	Appends Changelog = iota
	// Retracts is any changelog, each row with its kind (+I, -U, +U, -D),
	// an update as the retraction of the old row and the new row.
	Retracts
	// Upserts is a stream of upserts and deletions by the table's PRIMARY
	// KEY: a row replaces the row of its key, a deletion removes it.
	Upserts
)

// valueFormat is the format of t's rows: a file's, or a Kafka record's
// value.
func valueFormat(t Table) string {
	if f, ok := t.Options["format"]; ok {
		return f
	}
	return t.Options["value.format"]
}

// SourceChangelog says what t's source reads: upsert-kafka reads upserts,
// the debezium-json format a changelog, everything else insertions.
func SourceChangelog(t Table) Changelog {
	switch {
	case t.Options["connector"] == "upsert-kafka":
		return Upserts
	case valueFormat(t) == "debezium-json":
		return Retracts
	}
	return Appends
}

// SinkChangelog says what t's sink takes and, for an append-only one, why:
// print and blackhole take any changelog, the debezium-json format writes
// one, upsert-kafka writes upserts by the PRIMARY KEY; the csv, json and
// raw formats append rows, as in Flink.
func SinkChangelog(t Table) (Changelog, string) {
	conn := t.Options["connector"]
	switch {
	case conn == "print" || conn == "blackhole":
		return Retracts, ""
	case conn == "upsert-kafka":
		return Upserts, ""
	case valueFormat(t) == "debezium-json":
		return Retracts, ""
	case conn == "filesystem":
		return Appends, fmt.Sprintf("the filesystem connector with format '%s' appends rows", t.Options["format"])
	}
	return Appends, fmt.Sprintf("connector '%s' appends rows", conn)
}
