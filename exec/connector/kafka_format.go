package connector

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/types"
)

// The formats of a Kafka record's key or value: csv, json and
// debezium-json as in files (one record is one line, without its line
// break), and raw, one STRING column holding the bytes as they are. A key's
// format is an insert-only one: not debezium-json, as in Flink.

// formatConfig is one format and its options.
type formatConfig struct {
	key         string // the option naming it: format, key.format, value.format
	name        string // csv, json, debezium-json or raw
	csv         csvFormat
	dbz         debeziumFormat
	failMissing bool // json.fail-on-missing-field
	ignore      bool // <format>.ignore-parse-errors
}

// formatKeys lists a format's option keys under prefix ("", "key." or
// "value."). Without a known format every format key passes, so that the
// error is the missing or bad format, not its options.
func formatKeys(prefix, name string) []string {
	var keys []string
	switch name {
	case "csv":
		keys = csvKeys
	case "json":
		keys = jsonKeys
	case "debezium-json":
		keys = debeziumKeys
	case "raw":
	default:
		keys = slices.Concat(csvKeys, jsonKeys, debeziumKeys)
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = prefix + k
	}
	return out
}

// parseFormat reads the format named by option key and its options, which
// are under prefix.
func parseFormat(o *opts, key, prefix string) (formatConfig, error) {
	f := formatConfig{key: key, name: o.str(key, "")}
	names := []string{"csv", "json", "raw", "debezium-json"}
	if key == "key.format" {
		names = names[:3]
	}
	if !slices.Contains(names, f.name) {
		e := badChoice(key, f.name, names...)
		if f.name == "debezium-json" {
			e.Msg += ": a key's format reads and writes insertions only, as in Flink"
		}
		e.AtValue = true
		return f, e
	}
	var err error
	switch f.name {
	case "debezium-json":
		f.dbz, f.ignore, err = parseDebezium(o, prefix)
		return f, err
	case "json":
		if f.failMissing, err = o.boolean(prefix+"json.fail-on-missing-field", false); err != nil {
			return f, err
		}
		if f.ignore, err = o.boolean(prefix+"json.ignore-parse-errors", false); err != nil {
			return f, err
		}
		if f.failMissing && f.ignore {
			return f, &OptionError{Key: prefix + "json.fail-on-missing-field", Msg: fmt.Sprintf("options '%sjson.fail-on-missing-field' and '%sjson.ignore-parse-errors' cannot both be true", prefix, prefix)}
		}
	case "csv":
		c := &f.csv
		if c.delim, err = o.char(prefix+"csv.field-delimiter", ','); err != nil {
			return f, err
		}
		if c.quote, err = o.char(prefix+"csv.quote-character", '"'); err != nil {
			return f, err
		}
		if c.noQuote, err = o.boolean(prefix+"csv.disable-quote-character", false); err != nil {
			return f, err
		}
		if c.comments, err = o.boolean(prefix+"csv.allow-comments", false); err != nil {
			return f, err
		}
		if f.ignore, err = o.boolean(prefix+"csv.ignore-parse-errors", false); err != nil {
			return f, err
		}
		c.null, c.hasNull = o.get(prefix + "csv.null-literal")
		if c.delim == c.quote && !c.noQuote {
			return f, badValue(prefix+"csv.quote-character", string(c.quote), "must differ from the field delimiter")
		}
	}
	return f, nil
}

// decoder returns the format's decoder of columns s.
func (f *formatConfig) decoder(s types.Schema) decoder {
	switch f.name {
	case "csv":
		slot := make([]int, len(s)) // a record's fields are all decoded
		for i := range slot {
			slot[i] = i
		}
		return newCSVDecoder(s, slot, f.csv)
	case "json":
		return newJSONDecoder(s, f.failMissing)
	case "debezium-json":
		return newDebeziumDecoder(s, f.dbz)
	}
	return rawDecoder{}
}

// encoder returns the format's encoder of columns named names.
func (f *formatConfig) encoder(names []string) encoder {
	switch f.name {
	case "csv":
		return &csvEncoder{f: f.csv, names: names}
	case "json":
		return newJSONEncoder(names)
	case "debezium-json":
		return newDebeziumEncoder(names, f.dbz)
	}
	return rawEncoder{}
}

// rawDecoder makes the whole record one STRING value; unlike a line, an
// empty record is a row (the empty string).
type rawDecoder struct{}

func (rawDecoder) decode(rec []byte, b *batch) error {
	b.cols[0].parse(rec) // a string column takes any bytes
	b.commit()
	return nil
}

// rawEncoder writes the one column's bytes, and a line break the caller
// strips like the other encoders'. NULL is an empty record.
type rawEncoder struct{}

func (rawEncoder) encode(dst []byte, b arrow.RecordBatch, row int) ([]byte, error) {
	if a := b.Column(0).(*array.String); a.IsValid(row) {
		dst = append(dst, a.Value(row)...)
	}
	return append(dst, '\n'), nil
}
