package agg

import "unsafe"

// lineSize is the cache line the warming loops step by: 64 bytes on the
// machines strand runs on.
const lineSize = 64

// warm reads s one cache line at a time, in address order, when groups
// visit at least a quarter of its slots, and returns a value the caller
// keeps so that the reads are not optimized away. AppendTo visits the
// groups of a window in key order, so at random in the slot columns;
// when the columns have gone cold (a window subtask at parallelism 2
// holds a dozen windows open, and a window's columns leave the cache
// before it fires) each visit would wait for memory, where one pass in
// address order lets the hardware prefetch the lines ahead of it.
func warm[T any](s []T, groups int) uint64 {
	if len(s) == 0 || groups < len(s)/4 {
		return 0
	}
	var zero T
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
	var x uint64
	for i := 0; i < len(b); i += lineSize {
		x += uint64(b[i])
	}
	return x
}
