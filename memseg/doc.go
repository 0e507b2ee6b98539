// Package memseg is the memory of strand's stateful operators: a memory
// manager with a budget, binary rows, normalized keys, sort buffers, an
// external sort and a hash table, all over fixed-size byte segments, as in
// Flink's managed memory. Operators keep rows as bytes in segments rather
// than as Go objects, so their memory is bounded by the budget, costs the
// garbage collector nothing to scan, and can be spilled as it is.
//
// memseg imports no other strand package; callers map their SQL types onto
// its Type.
//
// # Manager
//
// A Manager hands out segments (32 KiB by default) from a budget (the
// memory.managed.size setting, 256 MiB by default). An allocation that
// would pass the budget fails with ErrNoMemory, which is not a failure of
// the query: the caller spills (a sort run to disk, window state to Pebble)
// and goes on. Segments are cut from 2 MiB chunks mapped outside the Go
// heap and backed by huge pages where the kernel grants them, since page
// faults on fresh memory were a third of the CPU of a query whose state
// grows; the chunks are unmapped when their Manager is garbage. Freed
// segments are reused through a free list. A large IntTable takes its
// slots as one block of the same mapped memory (a power of two of 64 KiB
// or more, block.go), also reused through free lists, by size. Every
// structure below takes its memory from a Manager and must be released by
// its owner (Release or Close); Manager.Used then drops back. A Manager is
// safe for concurrent use and is shared by the operators of a task; nothing
// else in this package is safe for concurrent use.
//
// # Normalized keys
//
// A key is the concatenation of its columns' encodings (AppendInt64,
// AppendString, ...). bytes.Compare of two keys is the SQL order of the
// rows, column by column, each ASC or DESC and NULLS FIRST or LAST; equal
// keys are equal rows in the SQL sense (-0.0 = 0.0, NaN = NaN, NaN greatest).
// The same bytes are the grouping key of hash exchanges and windows, the
// key of the HashTable and the sort buffers, and the Pebble state key, so
// there is one codec; Hash of them assigns key groups.
//
// Each column starts with a marker byte: 0x00 NULL (NULLS FIRST), 0x01 a
// value, 0x02 NULL (NULLS LAST). A NULL is the marker alone. A value follows
// in an order-preserving big-endian form, every byte inverted for DESC (the
// marker is not, so NULL placement is what NullsLast says):
//
//	BOOLEAN                       1 byte, 0 or 1
//	INT, BIGINT, DATE, TIMESTAMP  8 bytes, int64 with the sign bit flipped
//	FLOAT, DOUBLE                 4 or 8 bytes of IEEE bits in total order
//	DECIMAL                       16 bytes, the unscaled int128 (one scale per column)
//	STRING, BYTES                 the bytes, 0x00 escaped as 0x00 0xFF, then 0x00 0x01
//
// The encoding is part of the checkpoint and savepoint format: changing it
// breaks every stored state. The Decode functions read a column back.
//
// Hash is XXH64 with seed 0: a fixed function, so a key lands in the same
// key group in every process, which restoring state requires.
//
// A Layout describes a key's columns and derives its fixed-length prefix,
// Flink's normalized key: a fixed number of bytes per column, a string's
// first Width bytes and a length byte that shows truncation. Sort buffers
// compare prefixes as bytes and read full keys only to break ties between
// equal, truncated prefixes.
//
// # Binary rows
//
// A Schema lists a row's field types; a RowWriter builds rows and a Row
// reads any field with one load, without decoding the row: null bits, one
// 8-byte slot per field (fixed-size values and strings of up to 7 bytes
// inline), then the variable-length part. Rows are position independent
// bytes, stored as the values of sort buffers and spilled as they are.
//
// # Sort buffer
//
// A SortBuffer holds records (a key and a value) in record segments and,
// for each, an entry of the key's prefix and a 7-byte pointer in index
// segments. Sort is an in-place MSD radix sort of the entries (American
// flag sort on the prefix bytes, insertion sort on small ranges, full-key
// comparison only for equal truncated prefixes); it moves entries only,
// never records. Radix was chosen over quicksort by measurement: with
// 256-way buckets a BIGINT key needs about three passes over the entries
// where quicksort needs over twenty. The sort is not stable. Add returns
// ErrNoMemory when the budget cannot take the record, leaving the buffer
// intact. Keys and values returned alias the segments and stay valid until
// Reset or Release.
//
// # External sort
//
// A Sorter sorts without bound in a fixed memory: when its buffer is full
// it sorts it and writes a run to a temporary file (blocks with CRC-32C
// checksums), and Iter merges the runs with a loser tree, through one
// segment per run (merging groups of runs first when there are more runs
// than segments). Run files are unlinked as soon as they are created, so
// none is left behind by Close, by an error, or by a crash. A corrupt block
// fails the iteration with the file and offset.
//
// # Hash table
//
// A HashTable maps keys to fixed-size accumulators. The window aggregate
// (grouped by anything but one integer-like column, which takes an
// IntTable, below) keeps a table per window whose accumulator is a group
// number, indexing its vectorized accumulator columns, and reaches a
// group's key through the entry address Insert returns (KeyAt); a
// DISTINCT aggregate's seen values are a table with empty accumulators.
// Entries are appended to segments and never move, so the accumulator
// slice FindOrInsert returns stays valid until Reset or
// Release, across growth; buckets are open-addressing slots in segments,
// doubled at three quarters full. FindOrInsert returns ErrNoMemory, leaving
// the table intact, when a new key does not fit: the window operator then
// spills state. Iter walks entries in insertion order; Sorted walks them in
// key order through a sort index, which is how a fired window emits its
// groups in key order.
//
// An IntTable maps 8-byte keys to 32-bit values with the key in the slot
// (16-byte slots: key, value, hash bits; one typed slice charged with
// Reserve, doubled at three quarters full): the window aggregate's group
// table when it groups by one integer-like column, whose normalized key is
// a marker and those 8 bytes. A lookup reads one slot where HashTable
// reads a slot and an entry, and Lookup finds a batch of keys at once,
// loading every key's home slot before probing any, so that the cache
// misses of a table larger than the cache overlap; Fill then inserts the
// keys Lookup did not find, numbering them in order. Union numbers the
// keys of several sets in one table (a sliding window's groups from its
// slices'). Expect sizes a new table for the keys a similar one held, and
// Clear empties one kept for reuse. HashInt64 is Hash of such a key
// computed from the value, without encoding it; hash exchanges and the
// window use it per row.
//
// # Performance
//
// Measured with go test -bench on a shared, noisy 2-core virtual machine
// (AMD EPYC "Turin", Go 1.26), each benchmark in its own process, the two
// of a pair back to back; the figures are from one such run, the ranges
// from three.
//
// BenchmarkSortBuffer against BenchmarkSortSliceBaseline: add, sort and
// read back 10M records of a BIGINT key and a 16-byte payload, against the
// same records as a []struct sorted with slices.SortFunc:
//
//	sort buffer   153.5 ns/record   0 B/op         0 allocs/op
//	[]struct      468.9 ns/record   0 B/op         0 allocs/op
//	ratio         3.05x (2.46x to 3.58x over three runs)
//
// A reused sort buffer allocates nothing per fill, sort and read, whatever
// the record count (TestSortBufferAllocs); a cold one allocates its
// segments once, from the manager. Of the sort buffer's time, about a
// quarter is adding, half sorting and a quarter reading: the records are
// read in key order, so in random memory order, and BufferIter loads them
// in batches of 32 so the loads overlap (5.8x faster than one at a time).
//
// BenchmarkIndexSort, the entries of 1M BIGINT keys: radix sort 124 ns and
// quicksort 510 ns per entry (3.3x to 4.1x over three runs).
//
// BenchmarkHashTable against BenchmarkHashTableMapBaseline: SUM per key
// over 1M rows with 100k BIGINT keys, against a map[string]*int64 that
// allocates only for new keys:
//
//	hash table    118.6 ms/op   793 B/op          0 allocs/op
//	map           219.7 ms/op   2400001 B/op      200000 allocs/op
//	ratio         1.85x (0.87x to 1.85x over three runs; the table used
//	              13% to 19% less CPU in all three)
//
// Both are bound by memory latency on this machine: the table touches a
// slot and an entry per row, the map a group, a key string and a counter.
//
// BenchmarkGroupsIntTable against BenchmarkGroupsHashTable: number the
// groups of BIGINT keys (10 rows a key, batches of 4096 rows, a SUM per
// group), in an IntTable (HashInt64, Lookup, Insert of the keys not
// found) and in a HashTable of 4-byte group numbers, CPU time per row
// (the machine's load average was 18, so wall times were 4x these):
//
//	keys   IntTable   HashTable
//	10k    23.5 ns    73 ns
//	1M     73 ns      493-516 ns
//
// Without Lookup's first pass over the home slots the IntTable took 268
// to 294 ns per row at 1M keys: the overlapping of misses is most of it.
package memseg
