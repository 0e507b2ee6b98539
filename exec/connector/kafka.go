package connector

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/strandsql/strand/types"
)

// kafkaConfig is a kafka table's options (Flink's names; see doc.go).
type kafkaConfig struct {
	topics  []string       // topic: one or a ';' list
	pattern *regexp.Regexp // topic-pattern, instead of topics
	client  clientProps    // properties.*
	start   offsetSpec     // scan.startup.*
	bound   offsetSpec     // scan.bounded.*; mode "" is unbounded
	value   formatConfig
	key     *formatConfig // nil without key.format
	// keyCols and valueCols index the table's schema: the columns in the
	// record's key and in its value.
	keyCols, valueCols []int
	guarantee          string // sink.delivery-guarantee
	txnPrefix          string // sink.transactional-id-prefix
	partitioner        string // sink.partitioner
	// upsert is the upsert-kafka connector: the key is the PRIMARY KEY, a
	// record is an upsert of its key, a tombstone (no value) its deletion.
	upsert bool
	// keyPrefix is key.fields-prefix: the key columns' names start with
	// it, their fields in the key do not.
	keyPrefix string
	// discovery is scan.topic-partition-discovery.interval, 0 for none.
	discovery time.Duration
}

// offsetSpec says where a split starts or stops reading.
type offsetSpec struct {
	mode     string // earliest-offset, latest-offset, group-offsets, timestamp, specific-offsets
	millis   int64
	specific map[int32]int64 // partition to offset
}

// kafkaMetaKeys are the kafka source's metadata keys: Flink's, except
// that headers is a STRING holding a JSON object of the headers as UTF-8
// text (strand has no MAP or BYTES type yet), plus key, the record's key
// as text.
var kafkaMetaKeys = []metaKey{
	{"topic", types.TString.WithNotNull(true)},
	{"partition", types.TInt.WithNotNull(true)},
	{"headers", types.TString.WithNotNull(true)},
	{"leader-epoch", types.TInt},
	{"offset", types.TBigInt.WithNotNull(true)},
	{"timestamp", types.TTimestampLTZ.WithNotNull(true)},
	{"timestamp-type", types.TString.WithNotNull(true)},
	{"key", types.TString},
}

// kafkaWritable are the metadata keys a kafka sink writes, as Flink's:
// the record's headers (a JSON object of strings, as the source reads
// them) and its timestamp.
var kafkaWritable = []string{"headers", "timestamp"}

var kafkaKeys = []string{
	"connector", "topic", "topic-pattern", "format", "key.format", "key.fields", "value.format", "value.fields-include",
	"scan.startup.mode", "scan.startup.timestamp-millis", "scan.startup.specific-offsets",
	"scan.bounded.mode", "scan.bounded.timestamp-millis", "scan.bounded.specific-offsets",
	"sink.delivery-guarantee", "sink.transactional-id-prefix", "sink.partitioner", "scan.topic-partition-discovery.interval",
}

// upsertKafkaKeys are the upsert-kafka connector's options: Flink's, and
// scan.bounded.* (strand's, for a bounded read as the kafka connector's).
var upsertKafkaKeys = []string{
	"connector", "topic", "topic-pattern", "key.format", "key.fields-prefix", "value.format", "value.fields-include",
	"scan.bounded.mode", "scan.bounded.timestamp-millis", "scan.bounded.specific-offsets",
	"sink.delivery-guarantee", "sink.transactional-id-prefix", "sink.parallelism", "scan.topic-partition-discovery.interval",
}

func parseKafka(t Table) (kafkaConfig, error) {
	conn := t.Options["connector"]
	o := &opts{conn: conn, m: t.Options}
	c := kafkaConfig{upsert: conn == "upsert-kafka"}
	valueFmt, valuePrefix := t.Options["value.format"], "value."
	if _, ok := t.Options["format"]; ok && !c.upsert {
		valueFmt, valuePrefix = t.Options["format"], ""
	}
	keys := kafkaKeys
	if c.upsert {
		keys = upsertKafkaKeys
	}
	valid := slices.Concat(keys, alignKeys, formatKeys(valuePrefix, valueFmt), formatKeys("key.", t.Options["key.format"]))
	if err := o.checkKeys(valid, func(k string) bool { return strings.HasPrefix(k, "properties.") }); err != nil {
		return c, err
	}
	topic, hasTopic := o.get("topic")
	pattern, hasPattern := o.get("topic-pattern")
	switch {
	case hasTopic && hasPattern:
		return c, &OptionError{Key: "topic-pattern", Msg: "options 'topic' and 'topic-pattern' cannot both be set"}
	case hasTopic:
		for _, s := range strings.Split(topic, ";") {
			if s = strings.TrimSpace(s); s != "" {
				c.topics = append(c.topics, s)
			}
		}
		if len(c.topics) == 0 {
			return c, badValue("topic", topic, "must name at least one topic")
		}
	case hasPattern:
		re, err := regexp.Compile("^(?:" + pattern + ")$")
		if err != nil {
			return c, &OptionError{Key: "topic-pattern", AtValue: true, Msg: fmt.Sprintf("invalid value '%s' for option 'topic-pattern': %v", pattern, err)}
		}
		c.pattern = re
	default:
		return c, &OptionError{Key: "connector", Msg: fmt.Sprintf("connector '%s' needs option 'topic' or 'topic-pattern'", conn)}
	}
	var err error
	if c.client, err = parseProps(t.Options); err != nil {
		return c, err
	}
	if _, ok := t.Options["value.format"]; ok && valuePrefix == "" {
		return c, &OptionError{Key: "value.format", Msg: "options 'format' and 'value.format' cannot both be set"}
	}
	switch {
	case c.upsert && valueFmt == "":
		return c, &OptionError{Key: "connector", Msg: "connector 'upsert-kafka' needs option 'value.format'"}
	case c.upsert && t.Options["key.format"] == "":
		return c, &OptionError{Key: "connector", Msg: "connector 'upsert-kafka' needs option 'key.format'"}
	case valueFmt == "":
		return c, &OptionError{Key: "connector", Msg: "connector 'kafka' needs option 'format' or 'value.format'"}
	}
	key := "format"
	if valuePrefix != "" {
		key = "value.format"
	}
	if c.value, err = parseFormat(o, key, valuePrefix); err != nil {
		return c, err
	}
	if c.upsert && c.value.name == "debezium-json" {
		return c, &OptionError{Key: "value.format", AtValue: true, Msg: "connector 'upsert-kafka' takes an insert-only value format, as in Flink: its records are upserts by their key, not a changelog of their own"}
	}
	if err := c.parseColumns(o, t); err != nil {
		return c, err
	}
	startup := "group-offsets"
	if c.upsert {
		startup = "earliest-offset" // upsert-kafka reads the whole topic, as in Flink
	}
	if c.start, err = parseOffsets(o, "scan.startup", startup, "earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets"); err != nil {
		return c, err
	}
	if c.start.mode == "group-offsets" && c.client.group == "" {
		if _, set := o.get("scan.startup.mode"); set {
			return c, &OptionError{Key: "scan.startup.mode", AtValue: true, Msg: "scan.startup.mode 'group-offsets' needs option 'properties.group.id'"}
		}
		c.start.mode = "earliest-offset" // Flink's default needs a group; without one, read everything
	}
	if c.bound, err = parseOffsets(o, "scan.bounded", "", "latest-offset", "group-offsets", "timestamp", "specific-offsets"); err != nil {
		return c, err
	}
	// Flink's specific offsets name partitions, not topics: they are of
	// one topic, and Flink refuses them for several.
	for _, m := range []struct{ key, mode string }{{"scan.startup.mode", c.start.mode}, {"scan.bounded.mode", c.bound.mode}} {
		if m.mode == "specific-offsets" && (c.pattern != nil || len(c.topics) != 1) {
			return c, &OptionError{Key: m.key, AtValue: true, Msg: fmt.Sprintf("%s 'specific-offsets' needs a single topic; table %s names %s", m.key, t.Name, describeTopics(c))}
		}
	}
	if c.bound.mode == "group-offsets" && c.client.group == "" {
		return c, &OptionError{Key: "scan.bounded.mode", AtValue: true, Msg: "scan.bounded.mode 'group-offsets' needs option 'properties.group.id'"}
	}
	if c.guarantee, err = o.choice("sink.delivery-guarantee", "at-least-once", "none", "at-least-once", "exactly-once"); err != nil {
		return c, err
	}
	c.txnPrefix = o.str("sink.transactional-id-prefix", "")
	if c.guarantee == "exactly-once" && c.txnPrefix == "" {
		return c, &OptionError{Key: "sink.delivery-guarantee", AtValue: true, Msg: "sink.delivery-guarantee 'exactly-once' needs option 'sink.transactional-id-prefix'"}
	}
	if c.partitioner, err = o.choice("sink.partitioner", "default", "default", "round-robin", "fixed"); err != nil {
		return c, err
	}
	if _, err = o.integer("sink.parallelism", 0, 1, 1<<15); err != nil {
		return c, err
	}
	if v, ok := o.get("scan.topic-partition-discovery.interval"); ok {
		d, err := types.ParseDuration(v)
		if err != nil || d < 0 {
			return c, badValue("scan.topic-partition-discovery.interval", v, "must be a duration such as '1 min', or 0 for none")
		}
		if d > 0 && c.bound.mode != "" {
			return c, &OptionError{Key: "scan.topic-partition-discovery.interval", Msg: "option 'scan.topic-partition-discovery.interval' cannot be used with 'scan.bounded.mode': a bounded read reads the partitions its start finds"}
		}
		c.discovery = d
	}
	return c, nil
}

// parseColumns finds the key and value columns among the physical ones.
func (c *kafkaConfig) parseColumns(o *opts, t Table) error {
	var phys []int
	for i := range t.Schema {
		if t.Metadata == nil || t.Metadata[i] == "" {
			phys = append(phys, i)
		}
	}
	fields, hasFields := o.get("key.fields")
	_, hasKeyFmt := o.get("key.format")
	if c.upsert {
		// The key is the PRIMARY KEY, as in Flink.
		if len(t.PrimaryKey) == 0 {
			return &OptionError{Key: "connector", Msg: fmt.Sprintf("connector 'upsert-kafka' needs a PRIMARY KEY on table %s: its columns are the record key, and the rows are upserted and deleted by it, as in Flink", t.Name)}
		}
		fields, hasFields = strings.Join(t.PrimaryKey, ";"), true
	}
	switch {
	case hasFields && !hasKeyFmt:
		return &OptionError{Key: "key.fields", Msg: "option 'key.fields' needs option 'key.format'"}
	case hasKeyFmt && !hasFields:
		return &OptionError{Key: "key.format", Msg: "option 'key.format' needs option 'key.fields'"}
	case hasKeyFmt:
		f, err := parseFormat(o, "key.format", "key.")
		if err != nil {
			return err
		}
		c.key = &f
		for _, name := range strings.Split(fields, ";") {
			name = strings.TrimSpace(name)
			i := t.Schema.Index(name)
			if i < 0 || !slices.Contains(phys, i) {
				return badValue("key.fields", fields, fmt.Sprintf("'%s' is not a physical column of table %s", name, t.Name))
			}
			if slices.Contains(c.keyCols, i) {
				return badValue("key.fields", fields, fmt.Sprintf("column '%s' is named twice", name))
			}
			c.keyCols = append(c.keyCols, i)
		}
	}
	include, err := o.choice("value.fields-include", "ALL", "ALL", "EXCEPT_KEY")
	if err != nil {
		return err
	}
	if p, ok := o.get("key.fields-prefix"); ok && p != "" {
		if c.key == nil {
			return &OptionError{Key: "key.fields-prefix", Msg: "option 'key.fields-prefix' needs option 'key.format'"}
		}
		if include != "EXCEPT_KEY" {
			return &OptionError{Key: "key.fields-prefix", Msg: "option 'key.fields-prefix' needs 'value.fields-include' = 'EXCEPT_KEY', as in Flink"}
		}
		for _, i := range c.keyCols {
			if !strings.HasPrefix(t.Schema[i].Name, p) || t.Schema[i].Name == p {
				return badValue("key.fields-prefix", p, fmt.Sprintf("key column '%s' does not start with it", t.Schema[i].Name))
			}
		}
		c.keyPrefix = p
	}
	for _, i := range phys {
		if include == "ALL" || !slices.Contains(c.keyCols, i) {
			c.valueCols = append(c.valueCols, i)
		}
	}
	if len(c.valueCols) == 0 && include == "EXCEPT_KEY" {
		return badValue("value.fields-include", include, "every physical column is a key field: the value would be empty")
	}
	for _, f := range []*formatConfig{&c.value, c.key} {
		if f == nil || f.name != "raw" {
			continue
		}
		cols := c.valueCols
		if f == c.key {
			cols = c.keyCols
		}
		if len(cols) != 1 || t.Schema[cols[0]].Type.Kind != types.String {
			return &OptionError{Key: f.key, AtValue: true, Msg: fmt.Sprintf("format 'raw' reads and writes one STRING column; table %s gives it %d column(s)", t.Name, len(cols))}
		}
	}
	return nil
}

// parseOffsets reads <prefix>.mode and the options of the mode chosen.
func parseOffsets(o *opts, prefix, def string, modes ...string) (offsetSpec, error) {
	var s offsetSpec
	var err error
	if s.mode, err = o.choice(prefix+".mode", def, modes...); err != nil {
		return s, err
	}
	tsKey, offKey := prefix+".timestamp-millis", prefix+".specific-offsets"
	_, hasTS := o.get(tsKey)
	_, hasOff := o.get(offKey)
	switch {
	case s.mode == "timestamp":
		if s.millis, err = o.integer(tsKey, -1, 0, 1<<62); err != nil {
			return s, err
		}
		if s.millis < 0 {
			return s, &OptionError{Key: prefix + ".mode", AtValue: true, Msg: fmt.Sprintf("%s.mode 'timestamp' needs option '%s'", prefix, tsKey)}
		}
	case hasTS:
		return s, &OptionError{Key: tsKey, Msg: fmt.Sprintf("option '%s' is only valid with %s.mode 'timestamp'", tsKey, prefix)}
	}
	switch {
	case s.mode == "specific-offsets":
		v, ok := o.get(offKey)
		if !ok {
			return s, &OptionError{Key: prefix + ".mode", AtValue: true, Msg: fmt.Sprintf("%s.mode 'specific-offsets' needs option '%s'", prefix, offKey)}
		}
		if s.specific, err = parseSpecific(offKey, v); err != nil {
			return s, err
		}
	case hasOff:
		return s, &OptionError{Key: offKey, Msg: fmt.Sprintf("option '%s' is only valid with %s.mode 'specific-offsets'", offKey, prefix)}
	}
	return s, nil
}

// parseSpecific reads Flink's 'partition:0,offset:42;partition:1,offset:300'.
func parseSpecific(key, v string) (map[int32]int64, error) {
	bad := badValue(key, v, "must be 'partition:<p>,offset:<o>' pairs separated by ';'")
	m := map[int32]int64{}
	for _, pair := range strings.Split(v, ";") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		p, off, ok := strings.Cut(pair, ",")
		ps, ok1 := strings.CutPrefix(strings.TrimSpace(p), "partition:")
		os, ok2 := strings.CutPrefix(strings.TrimSpace(off), "offset:")
		if !ok || !ok1 || !ok2 {
			return nil, bad
		}
		pn, err1 := strconv.ParseInt(ps, 10, 32)
		on, err2 := strconv.ParseInt(os, 10, 64)
		if err1 != nil || err2 != nil || pn < 0 || on < 0 {
			return nil, bad
		}
		m[int32(pn)] = on
	}
	if len(m) == 0 {
		return nil, bad
	}
	return m, nil
}

// clientProps are the properties.* passed to the Kafka client.
type clientProps struct {
	brokers       []string
	group         string
	clientID      string
	readCommitted bool
	reset         string // auto.offset.reset: earliest, latest, none
	txnTimeout    time.Duration
	security      string // security.protocol
	mechanism     string // sasl.mechanism
	user, pass    string // from sasl.jaas.config
	caFile        string // ssl.truststore.location, PEM
}

// kafkaProps lists the client properties strand maps onto its client;
// other Kafka client properties are refused rather than ignored.
var kafkaProps = []string{
	"properties.bootstrap.servers", "properties.group.id", "properties.client.id", "properties.isolation.level",
	"properties.auto.offset.reset", "properties.transaction.timeout.ms", "properties.security.protocol",
	"properties.sasl.mechanism", "properties.sasl.jaas.config", "properties.ssl.truststore.location",
	"properties.ssl.truststore.type",
}

// jaasCred finds username="..." and password="..." in a JAAS line.
var jaasCred = regexp.MustCompile(`(username|password)\s*=\s*"([^"]*)"`)

func parseProps(m map[string]string) (clientProps, error) {
	o := &opts{conn: "kafka", m: m}
	p := clientProps{readCommitted: true, reset: "none", txnTimeout: 15 * time.Minute}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if strings.HasPrefix(k, "properties.") && !slices.Contains(kafkaProps, k) {
			return p, &OptionError{Key: k, Msg: fmt.Sprintf("Kafka client property '%s' is not supported by strand's client", strings.TrimPrefix(k, "properties.")), Valid: kafkaProps, what: "options"}
		}
	}
	servers, err := o.required("properties.bootstrap.servers")
	if err != nil {
		return p, err
	}
	for _, s := range strings.Split(servers, ",") {
		if s = strings.TrimSpace(s); s != "" {
			p.brokers = append(p.brokers, s)
		}
	}
	p.group = o.str("properties.group.id", "")
	p.clientID = o.str("properties.client.id", "strand")
	iso, err := o.choice("properties.isolation.level", "read_committed", "read_committed", "read_uncommitted")
	if err != nil {
		return p, err
	}
	p.readCommitted = iso == "read_committed"
	if p.reset, err = o.choice("properties.auto.offset.reset", "none", "earliest", "latest", "none"); err != nil {
		return p, err
	}
	if ms, err := o.integer("properties.transaction.timeout.ms", 900000, 1000, 1<<31-1); err != nil {
		return p, err
	} else {
		p.txnTimeout = time.Duration(ms) * time.Millisecond
	}
	if p.security, err = o.choice("properties.security.protocol", "PLAINTEXT", "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"); err != nil {
		return p, err
	}
	sasl := strings.HasPrefix(p.security, "SASL_")
	if p.mechanism, err = o.choice("properties.sasl.mechanism", "PLAIN", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"); err != nil {
		return p, err
	}
	if jaas, ok := o.get("properties.sasl.jaas.config"); ok {
		for _, m := range jaasCred.FindAllStringSubmatch(jaas, -1) {
			if m[1] == "username" {
				p.user = m[2]
			} else {
				p.pass = m[2]
			}
		}
		if p.user == "" {
			return p, badValue("properties.sasl.jaas.config", "...", `must give username="..." and password="..."`)
		}
	}
	if sasl && p.user == "" {
		return p, &OptionError{Key: "properties.security.protocol", AtValue: true, Msg: fmt.Sprintf("security.protocol '%s' needs option 'properties.sasl.jaas.config'", p.security)}
	}
	if t, ok := o.get("properties.ssl.truststore.type"); ok && !strings.EqualFold(t, "PEM") {
		return p, badValue("properties.ssl.truststore.type", t, "strand reads PEM trust stores only (no JKS or PKCS12)")
	}
	p.caFile = o.str("properties.ssl.truststore.location", "")
	return p, nil
}
