package connector

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// Flink's debezium-json format: a changelog, one message a line (a file)
// or a record (Kafka), {"before": row, "after": row, "op": "c|r|u|d"}.
//
// Decoding, as Flink's DebeziumJsonDeserializationSchema: "c" (create) and
// "r" (a snapshot read) are an insertion of after; "u" is an update, -U of
// before then +U of after; "d" a deletion of before. Other fields (source,
// ts_ms, transaction) are skipped. An unknown op, a missing or null row
// that the op needs, or malformed JSON is a bad row, so that
// debezium-json.ignore-parse-errors skips the whole message. With
// debezium-json.schema-include the message is {"schema": ..., "payload":
// {...}} and only the payload is read.
//
// Encoding, as Flink's DebeziumJsonSerializationSchema: +I and +U are
// {"before":null,"after":row,"op":"c"}, -U and -D {"before":row,
// "after":null,"op":"d"}: an update is written as a deletion and an
// insertion, never as one "u" message. Flink refuses schema-include for
// writing, and so does strand.

// debeziumKeys are the format's options (Flink's names).
var debeziumKeys = []string{"debezium-json.schema-include", "debezium-json.ignore-parse-errors", "debezium-json.timestamp-format.standard"}

// debeziumFormat is the format's options.
type debeziumFormat struct {
	schemaInclude bool
	// iso writes timestamps as ISO-8601 (2024-01-01T10:00:00.000), for
	// timestamp-format.standard 'ISO-8601'; reading takes either.
	iso bool
}

// parseDebezium reads the format's options under prefix ("", "value.")
// and whether parse errors are ignored.
func parseDebezium(o *opts, prefix string) (f debeziumFormat, ignore bool, err error) {
	if f.schemaInclude, err = o.boolean(prefix+"debezium-json.schema-include", false); err != nil {
		return f, false, err
	}
	if ignore, err = o.boolean(prefix+"debezium-json.ignore-parse-errors", false); err != nil {
		return f, false, err
	}
	std, err := o.choice(prefix+"debezium-json.timestamp-format.standard", "SQL", "SQL", "ISO-8601")
	f.iso = std == "ISO-8601"
	return f, ignore, err
}

// checkWrite refuses what Flink's encoder refuses.
func (f debeziumFormat) checkWrite(prefix string) error {
	if f.schemaInclude {
		return &OptionError{Key: prefix + "debezium-json.schema-include", AtValue: true,
			Msg: fmt.Sprintf("format 'debezium-json' cannot write with '%sdebezium-json.schema-include' = 'true', as in Flink: it only reads messages with a schema", prefix)}
	}
	return nil
}

// debeziumDecoder decodes one message into its rows.
type debeziumDecoder struct {
	env *jsonDecoder // the message: before, after, op; or payload
	pay *jsonDecoder // with schema-include, the payload's before, after, op
	row *jsonDecoder // a row of the table's columns
}

var (
	debeziumEnvelope = types.Schema{{Name: "before", Type: types.TString}, {Name: "after", Type: types.TString}, {Name: "op", Type: types.TString}}
	debeziumSchema   = types.Schema{{Name: "payload", Type: types.TString}}
)

func newDebeziumDecoder(s types.Schema, f debeziumFormat) *debeziumDecoder {
	d := &debeziumDecoder{env: newJSONDecoder(debeziumEnvelope, false), row: newJSONDecoder(s, false)}
	if f.schemaInclude {
		d.pay = d.env
		d.env = newJSONDecoder(debeziumSchema, false)
	}
	return d
}

func (d *debeziumDecoder) decode(msg []byte, b *batch) error {
	if ws(msg, 0) == len(msg) {
		return nil
	}
	if err := d.env.scan(msg); err != nil {
		return err
	}
	env := d.env
	if d.pay != nil {
		p := env.vals[0]
		if p.kind != 'c' || msg[p.start] != '{' {
			return &rowError{msg: `debezium-json: no "payload" object (debezium-json.schema-include is set)`}
		}
		msg = msg[p.start:p.end]
		if err := d.pay.scan(msg); err != nil {
			return err
		}
		env = d.pay
	}
	before, after, op := env.vals[0], env.vals[1], env.vals[2]
	if op.kind != 's' {
		return &rowError{msg: `debezium-json: "op" is missing or not a string`}
	}
	code := msg[op.start:op.end]
	if op.escaped {
		code = unescapeJSON(nil, code)
	}
	n := b.n
	var err error
	switch string(code) {
	case "c", "r":
		err = d.add(msg, after, "after", b, exec.Insert)
	case "u":
		if err = d.add(msg, before, "before", b, exec.UpdateBefore); err == nil {
			err = d.add(msg, after, "after", b, exec.UpdateAfter)
		}
	case "d":
		err = d.add(msg, before, "before", b, exec.Delete)
	default:
		return &rowError{msg: fmt.Sprintf(`debezium-json: unknown "op" value %q`, code)}
	}
	if err != nil {
		b.drop(n)
	}
	return err
}

// add decodes the row v, the field name of msg, as a row of kind k.
func (d *debeziumDecoder) add(msg []byte, v jsonVal, name string, b *batch, k exec.RowKind) error {
	if v.kind != 'c' || msg[v.start] != '{' {
		why := "missing"
		if v.kind == 'n' {
			why = "null"
		} else if v.kind != 0 {
			why = "not an object"
		}
		hint := ""
		if name == "before" {
			hint = " (a Debezium source must log whole old rows: Postgres needs REPLICA IDENTITY FULL)"
		}
		return &rowError{msg: fmt.Sprintf(`debezium-json: %q of a %s message is %s%s`, name, opName(k), why, hint)}
	}
	return d.row.decodeAs(msg[v.start:v.end], b, k)
}

func opName(k exec.RowKind) string {
	switch k {
	case exec.Insert:
		return `"c"`
	case exec.Delete:
		return `"d"`
	}
	return `"u"`
}

// debeziumEncoder writes each row as a message of its kind.
type debeziumEncoder struct {
	row *jsonEncoder
}

func newDebeziumEncoder(names []string, f debeziumFormat) *debeziumEncoder {
	e := newJSONEncoder(names)
	e.iso = f.iso
	return &debeziumEncoder{row: e}
}

func (e *debeziumEncoder) encode(dst []byte, b arrow.RecordBatch, row int) ([]byte, error) {
	var err error
	if exec.KindOf(b, row).Retracts() {
		dst = append(dst, `{"before":`...)
		if dst, err = e.row.encode(dst, b, row); err != nil {
			return dst, err
		}
		return append(dst[:len(dst)-1], `,"after":null,"op":"d"}`+"\n"...), nil
	}
	dst = append(dst, `{"before":null,"after":`...)
	if dst, err = e.row.encode(dst, b, row); err != nil {
		return dst, err
	}
	return append(dst[:len(dst)-1], `,"op":"c"}`+"\n"...), nil
}
