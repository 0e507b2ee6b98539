package connector

import (
	"fmt"
	"slices"
	"strings"
)

// checkNested refuses the ROW, ARRAY and MAP columns a connector cannot
// read or write: the json format holds them (objects and arrays); the
// csv and raw formats, datagen and partition columns do not. Flink's csv
// format writes an ARRAY or a ROW as its elements joined by ';'; strand
// does not (yet), and says so rather than writing something else.
func checkNested(t Table, conn string) error {
	for _, f := range t.Schema {
		if !f.Type.IsNested() {
			continue
		}
		kind := f.Type.Kind.String()
		switch conn {
		case "nexmark", "print", "blackhole":
			continue
		case "datagen":
			return &ColumnError{Column: f.Name, Msg: fmt.Sprintf("connector 'datagen' cannot generate %s column '%s' of table %s", kind, f.Name, t.Name)}
		}
		if slices.ContainsFunc(t.Partitions, func(p string) bool { return strings.EqualFold(p, f.Name) }) {
			return &ColumnError{Column: f.Name, Partition: true, Msg: fmt.Sprintf("partition column '%s' of table %s is a %s: partition values are scalars", f.Name, t.Name, kind)}
		}
		format := t.Options["format"]
		if conn == "kafka" {
			if v, ok := t.Options["value.format"]; ok {
				format = v
			}
			for _, k := range strings.Split(t.Options["key.fields"], ";") {
				if strings.EqualFold(strings.TrimSpace(k), f.Name) {
					format = t.Options["key.format"]
				}
			}
		}
		if format != "json" && format != "" {
			return &ColumnError{Column: f.Name, Msg: fmt.Sprintf("column '%s' of table %s is a %s, which format '%s' cannot hold in strand: use 'json'", f.Name, t.Name, kind, format)}
		}
	}
	return nil
}
