package planner

import (
	"maps"
	"slices"
	"strings"

	"github.com/strandsql/strand/parser"
)

// Functions a user declares. strand runs no JVM, so CREATE FUNCTION ... AS
// 'class' cannot load a class; it accepts the classes strand ships as
// built-ins and registers the function's name as an alias of the
// built-in, for the session. Any other class is refused, naming the
// built-in whose name matches the class's, if one does.

// shippedClasses maps the UDF classes strand ships as built-ins to them.
var shippedClasses = map[string]string{
	"com.github.nexmark.flink.udf.CountChar": "COUNT_CHAR", // Nexmark q14
}

// CreateFunction binds CREATE FUNCTION: name becomes an alias of the
// built-in that implements the class.
func (c *Catalog) CreateFunction(st *parser.CreateFunction) error {
	name := strings.ToUpper(identName(st.Name))
	builtin, ok := shippedClasses[st.Class.Value]
	if !ok {
		msg := "strand runs no Java; the only classes it ships, as built-in functions, are " + strings.Join(slices.Sorted(maps.Keys(shippedClasses)), ", ")
		if b := matchBuiltin(st.Class.Value); b != "" {
			msg = "use the built-in function " + b + " instead (" + msg + ")"
		}
		return errorf(st.Class.Start, ErrUnsupported, "function class '%s' is not available: %s", st.Class.Value, msg)
	}
	if st.Language != "" && st.Language != "JAVA" {
		return errorf(st.Start, ErrUnsupported, "function language %s is not supported: '%s' is a Java class", st.Language, st.Class.Value)
	}
	if name != builtin && isBuiltin(name) {
		return errorf(st.Name.Start, ErrExists, "function %s is built in", name)
	}
	if _, ok := c.funcs[name]; ok {
		if st.IfNotExists {
			return nil
		}
		return errorf(st.Name.Start, ErrExists, "function %s already exists", name)
	}
	if c.funcs == nil {
		c.funcs = map[string]string{}
	}
	c.funcs[name] = builtin
	return nil
}

// DropFunction removes a function CREATE FUNCTION declared.
func (c *Catalog) DropFunction(st *parser.DropFunction) error {
	name := strings.ToUpper(identName(st.Name))
	if _, ok := c.funcs[name]; ok {
		delete(c.funcs, name)
		return nil
	}
	if st.IfExists {
		return nil
	}
	if isBuiltin(name) {
		return errorf(st.Name.Start, ErrUnsupported, "function %s is built in and cannot be dropped", name)
	}
	return errorf(st.Name.Start, ErrUnknownFunction, "function %s does not exist", name)
}

// Functions returns the names of the built-in functions and of those
// CREATE FUNCTION declared, sorted, for SHOW FUNCTIONS and completion.
func (c *Catalog) Functions() []string {
	names := slices.Concat(Functions(), slices.Collect(maps.Keys(c.funcs)))
	slices.Sort(names)
	return slices.Compact(names)
}

// resolveFuncs renames the calls of declared functions in n to the
// built-ins they stand for. A view keeps the built-in: dropping the
// function later does not change it.
func (c *Catalog) resolveFuncs(n parser.Node) {
	if len(c.funcs) == 0 {
		return
	}
	parser.Inspect(n, func(n parser.Node) bool {
		if call, ok := n.(*parser.Call); ok {
			if b, ok := c.funcs[call.Name]; ok {
				call.Name = b
			}
		}
		return true
	})
}

func isBuiltin(name string) bool {
	_, found := slices.BinarySearch(Functions(), name)
	return found
}

// matchBuiltin is the built-in function whose name matches a class's
// simple name (RegexpExtract, regexp_extract, RegexpExtractFunction), or "".
func matchBuiltin(class string) string {
	simple := class[strings.LastIndexByte(class, '.')+1:]
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	want := norm(simple)
	for _, suffix := range []string{"function", "udf"} {
		if w, ok := strings.CutSuffix(want, suffix); ok && w != "" {
			want = w
		}
	}
	for _, f := range Functions() {
		if norm(f) == want {
			return f
		}
	}
	return ""
}
