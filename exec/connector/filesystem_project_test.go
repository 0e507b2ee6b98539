package connector

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// TestProjection reads a file through sources that read only some columns
// (Table.Read) and checks each returns exactly those columns of the full
// read, in both formats, with a metadata column among them.
func TestProjection(t *testing.T) {
	for _, format := range []string{"csv", "json"} {
		t.Run(format, func(t *testing.T) {
			tab := fsTable(t.TempDir(), format)
			tab.Schema = allTypes
			writeTable(t, tab, allRows)
			tab.Schema = append(slices.Clone(allTypes), types.Field{Name: "name", Type: types.TString.WithNotNull(true)})
			tab.Metadata = make([]string, len(tab.Schema))
			tab.Metadata[len(tab.Schema)-1] = "file.name"
			full := readRows(t, tab)
			r := rand.New(rand.NewPCG(3, 4))
			for range 40 {
				read := make([]bool, len(tab.Schema))
				for i := range read {
					read[i] = r.IntN(3) == 0
				}
				pt := tab
				pt.Read = read
				src := must(NewSource(pt))
				var want types.Schema
				for i, f := range tab.Schema {
					if read[i] {
						want = append(want, f)
					}
				}
				if !slices.Equal(src.Schema(), want) {
					t.Fatalf("read %v: schema %v, want %v", read, src.Schema(), want)
				}
				got := readRows(t, pt)
				for row := range full {
					var cells []string
					for i, c := range full[row] {
						if read[i] {
							cells = append(cells, c)
						}
					}
					if !slices.Equal(got[row], cells) {
						t.Fatalf("read %v, row %d: got %q, want %q", read, row, got[row], cells)
					}
				}
			}
		})
	}
}

// TestProjectionSkipsBadValues: a value in a column not read is not
// parsed, so it does not make the row malformed; the line's shape (field
// count, JSON syntax) still does.
func TestProjectionSkipsBadValues(t *testing.T) {
	schema := types.Schema{{Name: "a", Type: types.TInt}, {Name: "b", Type: types.TDouble}}
	for _, c := range []struct{ format, good, bad string }{
		{"csv", "1,x\n2,2.5\n", "1,x\n2\n"},
		{"json", `{"a":1,"b":"x"}` + "\n" + `{"a":2,"b":2.5}` + "\n", `{"a":1,"b":"x"}` + "\n" + `{"a":2,"b":}` + "\n"},
	} {
		dir := t.TempDir()
		writeFile(t, dir+"/good."+c.format, c.good)
		tab := fsTable(dir+"/good."+c.format, c.format)
		tab.Schema, tab.Read = schema, []bool{true, false}
		got, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{})
		if err != nil || strings.Join(got, ";") != "+I[1];+I[2]" {
			t.Errorf("%s: got %q, %v", c.format, got, err)
		}
		tab.Read = nil
		if _, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{}); err == nil {
			t.Errorf("%s: reading b too: no error", c.format)
		}
		writeFile(t, dir+"/bad."+c.format, c.bad)
		tab = fsTable(dir+"/bad."+c.format, c.format)
		tab.Schema, tab.Read = schema, []bool{true, false}
		if _, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{}); err == nil || !strings.Contains(err.Error(), ":2:") {
			t.Errorf("%s: malformed line 2: got %v", c.format, err)
		}
	}
}

// readRows reads every row of t as the cells FormatRow prints.
func readRows(t *testing.T, tab Table) [][]string {
	t.Helper()
	rows, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = splitCells(r)
	}
	return out
}

// splitCells splits "+I[a, b, c]" at its top-level ", ". The test rows'
// strings that contain ", " are compared whole across both reads, so a
// wrong split shows as a mismatch, never as a pass.
func splitCells(row string) []string {
	body := strings.TrimSuffix(strings.TrimPrefix(row, "+I["), "]")
	return strings.Split(body, ", ")
}
