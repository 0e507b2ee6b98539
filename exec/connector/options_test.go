package connector

import (
	"errors"
	"testing"

	"github.com/strandsql/strand/types"
)

func TestValidate(t *testing.T) {
	s := types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "id", Type: types.TBigInt}, {Name: "ok", Type: types.TBoolean}}
	cases := []struct {
		opts     map[string]string
		asSource bool
		key      string
		err      string
	}{
		{map[string]string{"connector": "filesystem", "pth": "x", "format": "csv"}, true, "pth",
			"unknown option 'pth' for connector 'filesystem' (valid options: 'connector', 'path', 'format', 'partition.default-name', 'sink.rolling-policy.file-size', 'source.split-size', 'sink.partition-commit.trigger', 'sink.partition-commit.delay', 'sink.partition-commit.policy.kind', 'sink.partition-commit.success-file.name', 'partition.time-extractor.kind', 'partition.time-extractor.timestamp-pattern', 'sink.rolling-policy.rollover-interval', 'sink.rolling-policy.check-interval', 'scan.watermark.alignment.group', 'scan.watermark.alignment.max-drift', 'scan.watermark.alignment.update-interval', 'csv.field-delimiter', 'csv.quote-character', 'csv.disable-quote-character', 'csv.allow-comments', 'csv.ignore-parse-errors', 'csv.null-literal', 'csv.ignore-first-line')"},
		{map[string]string{"connector": "filesystem", "format": "csv"}, true, "path",
			"missing required option 'path' for connector 'filesystem'"},
		{map[string]string{"connector": "filesystem", "path": "x", "csv.field-delimiter": ";"}, true, "format",
			"missing required option 'format' for connector 'filesystem'"},
		{map[string]string{"connector": "filesystem", "path": "x", "format": "xml"}, true, "format",
			"invalid value 'xml' for option 'format' (valid values: 'csv', 'json', 'debezium-json')"},
		{map[string]string{"connector": "filesystem", "path": "x", "format": "csv", "csv.field-delimiter": ";;"}, true, "csv.field-delimiter",
			"invalid value ';;' for option 'csv.field-delimiter': must be a single ASCII character other than a line break"},
		{map[string]string{"connector": "filesystem", "path": "x", "format": "json", "csv.field-delimiter": ";"}, true, "csv.field-delimiter", ""},
		{map[string]string{"connector": "filesystem", "path": "x", "format": "csv", "csv.ignore-parse-errors": "yes"}, true, "csv.ignore-parse-errors",
			"invalid value 'yes' for option 'csv.ignore-parse-errors' (valid values: 'true', 'false')"},
		{map[string]string{"connector": "filesystem", "path": "x", "format": "csv", "sink.rolling-policy.file-size": "12 parsecs"}, false, "sink.rolling-policy.file-size", ""},
		{map[string]string{"connector": "filesystem", "path": "x", "format": "json", "json.fail-on-missing-field": "true", "json.ignore-parse-errors": "true"}, true, "json.fail-on-missing-field", ""},
		{map[string]string{"connector": "kinesis"}, true, "connector",
			"unknown connector 'kinesis' (valid connectors: 'blackhole', 'datagen', 'filesystem', 'kafka', 'nexmark', 'print', 'upsert-kafka')"},
		{map[string]string{}, true, "connector", ""},
		{map[string]string{"connector": "print"}, true, "connector", "connector 'print' can only be used as a sink, not to read table t"},
		{map[string]string{"connector": "datagen"}, false, "connector", "connector 'datagen' can only be used as a source, not to write table t"},
		{map[string]string{"connector": "print", "print-identifier": "x", "standard-err": "true"}, false, "standard-err", ""},
		{map[string]string{"connector": "blackhole", "path": "x"}, false, "path", ""},
		{map[string]string{"connector": "datagen", "rows-per-sec": "1"}, true, "rows-per-sec", ""},
		{map[string]string{"connector": "datagen", "fields.nope.kind": "random"}, true, "fields.nope.kind", ""},
		{map[string]string{"connector": "datagen", "fields.id.kind": "sequential"}, true, "fields.id.kind",
			"invalid value 'sequential' for option 'fields.id.kind' (valid values: 'random', 'sequence')"},
		{map[string]string{"connector": "datagen", "fields.ok.kind": "sequence"}, true, "fields.ok.kind", ""},
		{map[string]string{"connector": "datagen", "fields.id.length": "3"}, true, "fields.id.length", ""},
		{map[string]string{"connector": "datagen", "fields.id.min": "5", "fields.id.max": "1"}, true, "fields.id.max", ""},
		{map[string]string{"connector": "datagen", "fields.ts.step": "1 fortnight"}, true, "fields.ts.step", ""},
		{map[string]string{"connector": "datagen", "fields.ID.null-rate": "1.5"}, true, "fields.ID.null-rate", ""},
		{map[string]string{"connector": "datagen", "splits": "0"}, true, "splits", ""},
	}
	for _, c := range cases {
		err := Validate(Table{Name: "t", Schema: s, Options: c.opts}, c.asSource)
		var oe *OptionError
		if !errors.As(err, &oe) || !errors.Is(err, ErrOption) {
			t.Errorf("%v: got %v, want an OptionError", c.opts, err)
			continue
		}
		if oe.Key != c.key || c.err != "" && err.Error() != c.err {
			t.Errorf("%v: got key %s: %v\nwant key %s: %s", c.opts, oe.Key, err, c.key, c.err)
		}
	}

	good := []struct {
		opts     map[string]string
		asSource bool
	}{
		{map[string]string{"connector": "filesystem", "path": "x", "format": "csv", "csv.field-delimiter": `\t`, "sink.rolling-policy.file-size": "1 kb"}, false},
		{map[string]string{"connector": "filesystem", "path": "x", "format": "json", "json.ignore-parse-errors": "TRUE"}, true},
		{map[string]string{"connector": "datagen", "rows-per-second": "-1", "number-of-rows": "10", "seed": "-3", "splits": "4",
			"fields.ts.kind": "random", "fields.ts.max-past": "5 s", "fields.ts.step": "100ms", "fields.ts.start": "2024-05-01 00:00:00",
			"fields.id.kind": "sequence", "fields.id.start": "1", "fields.id.end": "5", "fields.ok.null-rate": "0.5"}, true},
		{map[string]string{"connector": "print"}, false},
		{map[string]string{"connector": "blackhole"}, false},
	}
	for _, c := range good {
		if err := Validate(Table{Name: "t", Schema: s, Options: c.opts}, c.asSource); err != nil {
			t.Errorf("%v: %v", c.opts, err)
		}
	}
}

func TestMemorySizeAndDuration(t *testing.T) {
	for in, want := range map[string]int64{"128MB": 128 << 20, "1kb": 1024, "1 KB": 1024, "10": 10, "2g": 2 << 30, "5 bytes": 5} {
		if got, ok := types.ParseMemorySize(in); !ok || got != want {
			t.Errorf("%s: got %d %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "MB", "1.5MB", "1 PB", "99999999999999999tb"} {
		if _, ok := types.ParseMemorySize(in); ok {
			t.Errorf("%s accepted", in)
		}
	}
	for in, want := range map[string]int64{"100 ms": 100, "1 s": 1000, "2 min": 120000, "250": 250, "1h": 3600000, "1 day": 86400000} {
		if got, ok := durationMs(in); !ok || got != want {
			t.Errorf("%s: got %d %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "ms", "1 fortnight", "-1 s"} {
		if _, ok := durationMs(in); ok {
			t.Errorf("%s accepted", in)
		}
	}
}
