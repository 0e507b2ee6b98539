package window

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/memseg"
)

// A group's key is the memseg normalized key (ascending, NULLs first) of
// its key columns, the encoding memseg.KeyEncoder writes. The aggregate
// keeps only that key, not the columns' values: a fired group's key
// columns, and a spilled DISTINCT value, are decoded from it. Floats come
// back normalized as the encoding makes them: -0.0 as 0.0.

// keyDecoder decodes normalized keys of columns of the given types.
type keyDecoder struct {
	types   []memseg.Type
	scratch []byte
}

func newKeyDecoder(types []arrow.DataType) (*keyDecoder, error) {
	d := &keyDecoder{}
	for _, t := range types {
		mt, err := memseg.TypeOf(t)
		if err != nil {
			return nil, err
		}
		d.types = append(d.types, mt)
	}
	return d, nil
}

// decode appends the key's column values to bs, one builder per column
// (nil skips a column), and returns the bytes after them.
func (d *keyDecoder) decode(bs []array.Builder, key []byte) ([]byte, error) {
	for i, t := range d.types {
		var b array.Builder
		if bs != nil {
			b = bs[i]
		}
		var err error
		if key, err = memseg.DecodeColumn(b, t, memseg.Order{}, key, &d.scratch); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
	}
	return key, nil
}

// len returns the length of the key that b starts with.
func (d *keyDecoder) len(b []byte) (int, error) {
	rest, err := d.decode(nil, b)
	return len(b) - len(rest), err
}
