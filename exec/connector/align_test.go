package connector

import (
	"errors"
	"maps"
	"testing"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// TestAlignmentOptions: every source connector takes the alignment
// options, in either direction for those that also write; sink-only
// connectors refuse them; the group and max-drift come together.
func TestAlignmentOptions(t *testing.T) {
	s := types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TString}}
	align := map[string]string{KeyAlignGroup: "g", KeyAlignDrift: "1 min", KeyAlignInterval: "200 ms"}
	for _, c := range []struct {
		opts     map[string]string
		asSource bool
		ok       bool
	}{
		{map[string]string{"connector": "filesystem", "path": "x", "format": "csv"}, true, true},
		{map[string]string{"connector": "filesystem", "path": "x", "format": "json"}, false, true},
		{map[string]string{"connector": "datagen"}, true, true},
		{map[string]string{"connector": "nexmark", "event-type": "bid"}, true, true},
		{map[string]string{"connector": "kafka", "topic": "t", "properties.bootstrap.servers": "b:9092", "format": "json"}, true, true},
		{map[string]string{"connector": "kafka", "topic": "t", "properties.bootstrap.servers": "b:9092", "format": "json"}, false, true},
		{map[string]string{"connector": "upsert-kafka", "topic": "t", "properties.bootstrap.servers": "b:9092", "key.format": "json", "value.format": "json"}, true, true},
		{map[string]string{"connector": "print"}, false, false},
		{map[string]string{"connector": "blackhole"}, false, false},
	} {
		tab := Table{Name: "t", Schema: s, Options: maps.Clone(c.opts)}
		if c.opts["connector"] == "nexmark" {
			tab.Schema = types.Schema{{Name: "auction", Type: types.TBigInt}, {Name: "dateTime", Type: types.TTimestamp}}
		}
		if c.opts["connector"] == "upsert-kafka" {
			tab.PrimaryKey = []string{"k"}
		}
		if err := Validate(tab, c.asSource); err != nil {
			t.Fatalf("%v without alignment: %v", c.opts, err)
		}
		maps.Copy(tab.Options, align)
		err := Validate(tab, c.asSource)
		var oe *OptionError
		switch {
		case c.ok && err != nil:
			t.Errorf("%v: %v", c.opts, err)
		case !c.ok && (!errors.As(err, &oe) || oe.Key != KeyAlignGroup):
			t.Errorf("%v: %v, want the first alignment key refused", c.opts, err)
		}
	}
	for _, c := range []struct {
		opts map[string]string
		want exec.Alignment
		key  string
	}{
		{map[string]string{}, exec.Alignment{}, ""},
		{map[string]string{KeyAlignInterval: "1 s"}, exec.Alignment{}, ""},
		{align, exec.Alignment{Group: "g", MaxDrift: 60000}, ""},
		{map[string]string{KeyAlignGroup: "g"}, exec.Alignment{}, KeyAlignGroup},
		{map[string]string{KeyAlignDrift: "1 s"}, exec.Alignment{}, KeyAlignDrift},
		{map[string]string{KeyAlignGroup: "", KeyAlignDrift: "1 s"}, exec.Alignment{}, KeyAlignGroup},
		{map[string]string{KeyAlignGroup: "g", KeyAlignDrift: "500 us"}, exec.Alignment{}, KeyAlignDrift},
		{map[string]string{KeyAlignGroup: "g", KeyAlignDrift: "1 s", KeyAlignInterval: "0 s"}, exec.Alignment{}, KeyAlignInterval},
	} {
		got, err := Alignment(Table{Options: c.opts})
		var oe *OptionError
		switch {
		case c.key == "" && (err != nil || got != c.want):
			t.Errorf("%v: %+v, %v; want %+v", c.opts, got, err, c.want)
		case c.key != "" && (!errors.As(err, &oe) || oe.Key != c.key || !errors.Is(err, ErrOption)):
			t.Errorf("%v: %v, want an error on %s", c.opts, err, c.key)
		}
	}
}
