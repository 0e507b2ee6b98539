package connector

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// splitValues computes the values a file gives its metadata and partition
// columns: one row of the columns of s.schema that are not in the file.
func (s *fileSource) splitValues(path string, f *os.File) (*batch, error) {
	var cs types.Schema
	for i, c := range s.cols {
		if c < 0 {
			cs = append(cs, s.schema[i])
		}
	}
	b := newBatch(cs)
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	parts, err := s.partitionValues(path)
	if err != nil {
		return nil, err
	}
	k := 0
	for i, c := range s.cols {
		if c >= 0 {
			continue
		}
		col, name := &b.cols[k], s.schema[i].Name
		k++
		key := ""
		if s.meta != nil {
			key = s.meta[i]
		}
		switch key {
		case "file.path":
			abs, err := filepath.Abs(path)
			if err != nil {
				return nil, err
			}
			col.str([]byte(abs))
		case "file.name":
			col.str([]byte(filepath.Base(path)))
		case "file.size":
			col.int64(fi.Size())
		case "file.modification-time":
			col.int64(fi.ModTime().UnixMilli())
		case "":
			v, ok := parts[name]
			if !ok || v == s.cfg.defaultPart {
				col.null()
			} else if !col.parse(javaTime(v, col.t)) {
				return nil, fmt.Errorf("%s: partition column '%s': %s", filepath.Dir(path), name, parseError([]byte(v), col.t))
			}
			if msg := notNull(col); msg != "" {
				return nil, fmt.Errorf("%s: partition column '%s': %s", filepath.Dir(path), name, msg)
			}
		}
	}
	b.commit()
	return b, nil
}

// javaTime completes a TIMESTAMP partition value named as Java's
// LocalDateTime does when the seconds are zero (2024-01-01T10:00), the
// form Flink and partText write.
func javaTime(v string, t types.Type) []byte {
	if t.Kind == types.Timestamp && len(v) == 16 && v[10] == 'T' {
		return []byte(v + ":00")
	}
	return []byte(v)
}

// partitionValues reads the partition values of the file at path from the
// directories between the table's path and the file: one k=v directory per
// partition column, in declared order, keys and values unescaped. A file
// elsewhere is an error rather than data read without its partition.
func (s *fileSource) partitionValues(path string) (map[string]string, error) {
	if len(s.parts) == 0 {
		return nil, nil
	}
	want := make([]string, len(s.parts))
	for i, p := range s.parts {
		want[i] = string(escapePart(nil, []byte(p))) + "=<value>"
	}
	layout := strings.Join(want, "/") + "/"
	rel, err := filepath.Rel(s.cfg.path, filepath.Dir(path))
	var segs []string
	if err == nil && rel != "." {
		segs = strings.Split(rel, string(filepath.Separator))
	}
	if len(segs) != len(s.parts) {
		return nil, fmt.Errorf("file %s is not in a partition directory %s of %s", path, layout, s.cfg.path)
	}
	out := make(map[string]string, len(s.parts))
	for i, seg := range segs {
		k, v, ok := strings.Cut(seg, "=")
		if !ok || v == "" || !strings.EqualFold(unescapePart(k), s.parts[i]) {
			return nil, fmt.Errorf("file %s is not in a partition directory %s of %s", path, layout, s.cfg.path)
		}
		out[s.parts[i]] = unescapePart(v)
	}
	return out, nil
}

// flush returns the rows read as a record of the table's schema: the
// file's columns as decoded, the others repeating the split's values.
func (r *fileReader) flush() arrow.RecordBatch {
	rec := r.b.flush()
	if r.split == nil {
		return rec
	}
	defer rec.Release()
	n := int(rec.NumRows())
	arrs := make([]arrow.Array, len(r.src.cols))
	k := 0
	for i, c := range r.src.cols {
		if c >= 0 {
			arrs[i] = rec.Column(c)
			arrs[i].Retain()
			continue
		}
		arrs[i] = r.split.cols[k].repeat(r.ro.Alloc, n)
		k++
	}
	out := array.NewRecordBatch(r.src.arrow, arrs, int64(n))
	for _, a := range arrs {
		a.Release()
	}
	return exec.Rekind(out, rec)
}
