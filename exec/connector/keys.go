package connector

import "slices"

// Connectors returns the connector names, sorted.
func Connectors() []string { return slices.Clone(connectors) }

// OptionKeys returns the WITH option keys that connector name takes, as
// its checks accept them ("fields.<name>.kind" stands for a key per
// column), for completion in the REPL; nil for an unknown connector.
func OptionKeys(name string) []string {
	switch name {
	case "blackhole":
		return []string{"connector"}
	case "print":
		return slices.Clone(printKeys)
	case "datagen":
		return slices.Clone(genKeys)
	case "filesystem":
		return slices.Concat(fsKeys, commitKeys, csvKeys, jsonKeys, debeziumKeys)
	case "nexmark":
		return slices.Clone(nexKeys)
	case "kafka":
		return slices.Concat(kafkaKeys, []string{"properties.bootstrap.servers", "properties.group.id"}, csvKeys, jsonKeys, debeziumKeys)
	case "upsert-kafka":
		return slices.Concat(upsertKafkaKeys, []string{"properties.bootstrap.servers"})
	}
	return nil
}
