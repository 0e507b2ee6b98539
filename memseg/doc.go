// Package memseg holds strand's operator memory: normalized keys, and (to
// come) the memory manager, binary rows, sort buffers, external sort and the
// segment hash table.
//
// # Normalized keys
//
// A key is the concatenation of its columns' encodings (AppendInt64,
// AppendString, ...). bytes.Compare of two keys is SQL order of the rows,
// column by column, each ASC or DESC and NULLS FIRST or LAST; equal keys
// are equal rows in the SQL sense (-0.0 = 0.0, NaN = NaN). The same bytes
// are the grouping key of hash exchanges and windows, the Pebble state key,
// and the input of Hash, which assigns key groups: one codec everywhere.
//
// Each column starts with a marker byte: 0x00 NULL (NULLS FIRST), 0x01 a
// value, 0x02 NULL (NULLS LAST). A NULL is the marker alone. Values follow
// in big-endian order-preserving form, every byte inverted for DESC:
//
//	BOOLEAN                    1 byte, 0 or 1
//	INT, BIGINT, DATE, TIMESTAMP 8 bytes, int64 with the sign bit flipped
//	FLOAT, DOUBLE              4 or 8 bytes of IEEE bits in total order
//	DECIMAL                    16 bytes, the unscaled int128 (one scale per column)
//	STRING, BYTES              the bytes, 0x00 escaped as 0x00 0xFF, then 0x00 0x01
//
// The encoding is part of the state format: changing it breaks every
// checkpoint and savepoint.
//
// A Layout turns a key into a fixed-length prefix (Flink's normalized key),
// which sort buffers compare as bytes; a string keeps a fixed number of
// bytes and a length byte that shows truncation, and only keys with equal,
// truncated prefixes need comparing in full.
package memseg
