package memseg

import "unsafe"

// hugePage is the size of a transparent huge page on x86-64 and arm64 with
// 4 KiB base pages, the size of a Manager's chunks.
const hugePage = 2 << 20

// pages is the part of b that whole 4 KiB pages cover, as madvise wants.
func pages(b []byte) []byte {
	const page = 4096
	start := (page - int(uintptr(unsafe.Pointer(unsafe.SliceData(b))))%page) % page
	if start >= len(b) {
		return nil
	}
	return b[start : start+(len(b)-start)/page*page]
}
