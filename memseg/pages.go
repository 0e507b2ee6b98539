package memseg

import (
	"os"
	"unsafe"
)

// hugePage is the size of a transparent huge page on x86-64 and arm64 with
// 4 KiB base pages, the size of a Manager's chunks.
const hugePage = 2 << 20

// pageSize is the kernel's page size: 4 KiB on x86-64, but 16 or 64 KiB on
// some arm64 and ppc64 kernels. A variable so that tests can take another.
var pageSize = os.Getpagesize()

// pages is the part of b that whole pages cover, as madvise wants. It must
// not assume 4 KiB pages: the kernel rounds madvise's length up to a whole
// page, so a segment smaller than a page would have its neighbours, in use,
// released (zeroed) with it.
func pages(b []byte) []byte {
	page := pageSize
	start := (page - int(uintptr(unsafe.Pointer(unsafe.SliceData(b))))%page) % page
	if start >= len(b) {
		return nil
	}
	return b[start : start+(len(b)-start)/page*page]
}
