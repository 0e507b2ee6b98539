package planner

import (
	"errors"
	"slices"
	"testing"

	"github.com/strandsql/strand/parser"
)

func TestCreateFunction(t *testing.T) {
	cat := NewCatalog()
	exec := func(sql string) error {
		sts, err := parser.Parse(sql)
		if err != nil {
			t.Fatal(err)
		}
		switch st := sts[0].(type) {
		case *parser.CreateFunction:
			return cat.CreateFunction(st)
		case *parser.DropFunction:
			return cat.DropFunction(st)
		}
		t.Fatalf("%T", sts[0])
		return nil
	}
	if err := exec("CREATE FUNCTION cc AS 'com.github.nexmark.flink.udf.CountChar'"); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cat.Functions(), "CC") || !slices.Contains(cat.Functions(), "COUNT_CHAR") {
		t.Errorf("Functions() misses CC or COUNT_CHAR: %v", cat.Functions())
	}
	if err := exec("CREATE FUNCTION x AS 'org.example.Lpad'"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("an unknown class: %v", err)
	}
	if err := exec("DROP FUNCTION cc"); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(cat.Functions(), "CC") {
		t.Error("CC is still listed after DROP FUNCTION")
	}
	if err := exec("DROP FUNCTION cc"); !errors.Is(err, ErrUnknownFunction) {
		t.Errorf("dropping a missing function: %v", err)
	}
}
