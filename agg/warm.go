package agg

import "unsafe"

// lineSize is the cache line the warming loops step by: 64 bytes on the
// machines strand runs on.
const lineSize = 64

// warm reads s one cache line at a time, in address order, when groups
// (the number of slots a call visits, repeats counted) are at least a
// quarter as many as its slots, and returns a value the caller keeps so
// that the reads are not optimized away. Update and AppendTo visit slots
// in the order of their rows or of the window's keys, so at random in the
// slot columns; when the columns have gone cold (a window subtask at
// parallelism 2 holds a dozen windows open, fed from two sources far
// apart in event time, and a window's columns leave the cache between
// one batch and the next and before it fires) each visit waits for
// memory, where one pass in address order lets the hardware prefetch the
// lines ahead of it. On columns in the cache the pass costs a load per
// 64 bytes; on a large table (a group aggregate's million groups, a
// batch's few thousand rows) it is skipped.
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

// Toucher is an Acc that can load the slots of a few groups before they
// are visited one by one. A checkpoint encodes the groups changed since
// the last one (Put), 1% of a million groups say, at random in the slot
// columns: one group at a time, each of its columns' slots waits for
// memory in turn (with the window's key and key group, a COUNT and a SUM
// are four misses a group).
// Touch loads the slots of many groups in a loop of loads that do not
// depend on one another, which the CPU has in flight together, so that
// the Puts that follow find them in the cache. It returns a value the
// caller keeps, so that the loads are not optimized away.
type Toucher interface {
	Touch(groups []int32) uint64
}

// touch loads the slot of each of groups in s (see Toucher).
func touch[T any](s []T, groups []int32) uint64 {
	var x uint64
	for _, g := range groups {
		x += uint64(*(*byte)(unsafe.Pointer(&s[g])))
	}
	return x
}
