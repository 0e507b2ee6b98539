package tests

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/strandsql/strand/"

// allowed is DESIGN.md's import table: which project packages each layer
// may import. A package's subpackages (exec/expr) belong to its layer.
// exec holds the window adapter for now (DESIGN.md), which names agg's
// calls, so exec may import window and agg until the adapter moves.
// rank's and groupagg's tests build checkpoints to restore from
// (checkpoint.Storage, Metadata): checkpoint sits below exec, so that edge
// goes down.
var allowed = map[string][]string{
	"types":      {},
	"memseg":     {},
	"parser":     {},
	"state":      {"memseg", "types"},
	"checkpoint": {"state", "types"},
	"agg":        {"memseg", "types"},
	"window":     {"agg", "state", "memseg", "types"},
	"join":       {"exec", "agg", "state", "memseg", "types"},
	"groupagg":   {"exec", "agg", "state", "memseg", "checkpoint", "types"},
	"over":       {"exec", "agg", "state", "memseg", "types"},
	"rank":       {"exec", "agg", "state", "memseg", "checkpoint", "types"},
	"exec":       {"window", "agg", "state", "memseg", "checkpoint", "types"},
	"planner":    {"parser", "exec", "window", "join", "rank", "groupagg", "over", "agg", "state", "memseg", "checkpoint", "types"},
	"session":    {"planner", "exec", "checkpoint", "parser", "types"},
	"repl":       {"session", "planner", "exec", "checkpoint", "parser", "types"},
	"bench":      {"session", "planner", "exec", "checkpoint", "parser", "repl", "types", "window", "join", "rank", "groupagg", "over", "agg", "state", "memseg", "queries"},
	"cmd":        {"bench", "session", "planner", "exec", "checkpoint", "parser", "repl", "types", "window", "join", "rank", "groupagg", "over", "agg", "state", "memseg", "queries"},
	"tests":      {"session", "planner", "exec", "checkpoint", "parser", "repl", "types", "window", "join", "rank", "groupagg", "over", "agg", "state", "memseg", "bench", "cmd", "queries"},
	"queries":    {},
}

// TestImportDirections fails on any import edge DESIGN.md forbids, in
// production and test files alike.
func TestImportDirections(t *testing.T) {
	root := ".."
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			// A nested module (bench/duckdb) is not part of strand's
			// module, and the table does not govern it.
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		layer := strings.Split(filepath.ToSlash(rel), "/")[0]
		rules, ok := allowed[layer]
		if !ok {
			t.Errorf("%s: package layer %q is not in DESIGN.md's table", rel, layer)
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(p, module) {
				continue
			}
			dep := strings.Split(strings.TrimPrefix(p, module), "/")[0]
			checked++
			if dep != layer && !contains(rules, dep) {
				t.Errorf("%s imports %s: %s may not import %s (DESIGN.md)", rel, p, layer, dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no project imports found: is the test running from tests/?")
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
