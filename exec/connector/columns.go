package connector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strandsql/strand/types"
)

// Columns a filesystem table has besides those in its files: metadata
// columns (Flink's file.path, file.name, file.size and
// file.modification-time), which a source fills per file and no sink
// writes, and partition columns, whose values are the names of the
// directories a file is in (dt=2024-01-01/).

type metaKey struct {
	key string
	typ types.Type
}

// metaKeys are the filesystem source's metadata keys, with their types,
// in Flink's order.
var metaKeys = []metaKey{
	{"file.path", types.TString.WithNotNull(true)},
	{"file.name", types.TString.WithNotNull(true)},
	{"file.size", types.TBigInt.WithNotNull(true)},
	{"file.modification-time", types.TTimestampLTZ.WithNotNull(true)},
}

// metaFits reports whether a column of type col can hold the metadata of
// type meta: the same kind (any string or timestamp precision), and
// TIMESTAMP for TIMESTAMP_LTZ, as a CAST would allow.
func metaFits(meta, col types.Type) bool {
	if meta.Kind == types.TimestampLTZ {
		return col.IsTimestamp()
	}
	return col.Kind == meta.Kind
}

// checkColumns refuses metadata and partition columns the connector
// cannot serve in the requested direction.
func checkColumns(t Table, conn string, asSource bool) error {
	if err := checkNested(t, conn); err != nil {
		return err
	}
	for i, key := range t.Metadata {
		if key == "" {
			continue
		}
		col := t.Schema[i]
		kafka := conn == "kafka" || conn == "upsert-kafka"
		switch {
		case !asSource && kafka && !slices.Contains(kafkaWritable, key):
			return &ColumnError{Column: col.Name, Msg: fmt.Sprintf(
				"connector '%s' writes metadata 'headers' and 'timestamp' only; declare column '%s' of table %s VIRTUAL so that writing skips it", conn, col.Name, t.Name)}
		case !asSource && !kafka:
			return &ColumnError{Column: col.Name, Msg: fmt.Sprintf(
				"connector '%s' cannot write metadata column '%s' of table %s; declare it VIRTUAL so that writing skips it", conn, col.Name, t.Name)}
		case conn != "filesystem" && conn != "kafka" && conn != "upsert-kafka":
			return &ColumnError{Column: col.Name, Msg: fmt.Sprintf(
				"connector '%s' has no metadata; column '%s' of table %s cannot be METADATA", conn, col.Name, t.Name)}
		}
		metaKeys := metaKeys
		if conn != "filesystem" {
			metaKeys = kafkaMetaKeys
		}
		j := slices.IndexFunc(metaKeys, func(m metaKey) bool { return m.key == key })
		if j < 0 {
			keys := make([]string, len(metaKeys))
			for k, m := range metaKeys {
				keys[k] = "'" + m.key + "'"
			}
			return &ColumnError{Column: col.Name, AtKey: true, Msg: fmt.Sprintf(
				"unknown metadata key '%s' for column '%s' of table %s (valid keys: %s)", key, col.Name, t.Name, strings.Join(keys, ", "))}
		}
		if m := metaKeys[j]; !metaFits(m.typ, col.Type) {
			return &ColumnError{Column: col.Name, Msg: fmt.Sprintf(
				"metadata '%s' is %s; column '%s' of table %s is %s", key, m.typ, col.Name, t.Name, col.Type.Plain())}
		}
	}
	if len(t.Partitions) == 0 {
		return nil
	}
	if conn != "filesystem" {
		return &ColumnError{Column: t.Partitions[0], Partition: true, Msg: fmt.Sprintf("connector '%s' has no partitions; table %s cannot be PARTITIONED BY", conn, t.Name)}
	}
	for _, p := range t.Partitions {
		i := t.Schema.Index(p)
		if i < 0 || t.Metadata != nil && t.Metadata[i] != "" {
			return &ColumnError{Column: p, Partition: true, Msg: fmt.Sprintf("partition column '%s' of table %s is not a physical column", p, t.Name)}
		}
	}
	if len(fileColumns(t)) == 0 {
		return &ColumnError{Column: t.Partitions[0], Partition: true, Msg: fmt.Sprintf("table %s has no column in its files: every physical column is a partition column", t.Name)}
	}
	return nil
}

// fileColumns lists the indexes in t.Schema of the columns in the files:
// the physical columns that are not partition columns.
func fileColumns(t Table) []int {
	var out []int
	for i, f := range t.Schema {
		if t.Metadata != nil && t.Metadata[i] != "" || slices.Contains(t.Partitions, f.Name) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// escapePart escapes a partition key or value for a directory name as
// Flink (and Hive) do: control characters, '"', '#', '%', '\”, '*', '/',
// ':', '=', '?', '\\', DEL, '{', '[', ']' and '^' become %XX.
func escapePart(dst []byte, s []byte) []byte {
	const hex = "0123456789ABCDEF"
	for _, c := range s {
		if c < ' ' || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
			dst = append(dst, '%', hex[c>>4], hex[c&15])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// unescapePart undoes escapePart: %XX with two hex digits is the byte XX,
// any other '%' stands for itself.
func unescapePart(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if hi, lo := unhex(s[i+1]), unhex(s[i+2]); hi >= 0 && lo >= 0 {
				b = append(b, byte(hi<<4|lo))
				i += 2
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
