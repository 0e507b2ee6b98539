package planner

import (
	"maps"
	"slices"

	"github.com/strandsql/strand/exec/connector"
)

// Functions returns the names of the functions a query may call, sorted:
// scalar and aggregate functions, the window table function and the
// legacy window's auxiliary functions, and ROW_NUMBER, for SHOW FUNCTIONS
// and completion.
func Functions() []string {
	names := slices.Concat(scalarFuncs, builtinFuncs, slices.Collect(maps.Keys(aggregateNames)),
		slices.Collect(maps.Keys(windowAuxNames)), []string{"ROW_NUMBER"})
	slices.Sort(names)
	return slices.Compact(names)
}

// Connectors returns the connector names, sorted.
func Connectors() []string { return connector.Connectors() }

// ConnectorOptions returns the WITH option keys of connector name.
func ConnectorOptions(name string) []string { return connector.OptionKeys(name) }
