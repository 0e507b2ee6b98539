package memseg

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapChunk returns n bytes of zeroed memory outside the Go heap, mapped
// from the kernel, and true; or, if the kernel refuses, n bytes from the
// Go heap and false. A chunk of a huge page or more starts on a huge-page
// boundary and is advised to be backed by huge pages.
//
// Why not the Go heap: a fresh 4 KiB page costs a page fault on its first
// write. State that grows by hundreds of megabytes spent a third of its CPU
// in those faults (Nexmark q18 on a virtual machine: 77K faults for 1M
// events), and a huge page takes one fault per 2 MiB. The Go heap gives no
// huge pages where the kernel grants them only on request (the "madvise"
// setting, the common default), and advising its memory after the fact
// misses: its large objects are not aligned to huge pages.
func mapChunk(n int) ([]byte, bool) {
	huge := n >= hugePage
	size := uintptr(n)
	if huge {
		size += hugePage // room to align the start
	}
	p, err := unix.MmapPtr(-1, 0, nil, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]byte, n), false
	}
	if huge {
		skip, tail := trim(uintptr(p), uintptr(n))
		if skip > 0 {
			_ = unix.MunmapPtr(p, skip)
		}
		if tail > 0 {
			_ = unix.MunmapPtr(unsafe.Add(p, skip+uintptr(n)), tail)
		}
		p = unsafe.Add(p, skip)
	}
	b := unsafe.Slice((*byte)(p), n)
	if huge {
		// Advice only: with huge pages off, base pages serve as well.
		_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	}
	return b, true
}

// trim returns how much of a mapping at p of n+hugePage bytes to unmap
// before and after the n bytes that start on the first huge-page boundary.
func trim(p, n uintptr) (skip, tail uintptr) {
	skip = (hugePage - p%hugePage) % hugePage
	return skip, hugePage - skip
}

// unmapChunk gives back a chunk that mapChunk mapped.
func unmapChunk(b []byte) { _ = unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b))) }

// release gives the physical memory under seg back to the kernel; its
// next write faults in zeroed memory.
func release(seg []byte) {
	if p := pages(seg); len(p) > 0 {
		_ = unix.Madvise(p, unix.MADV_DONTNEED)
	}
}
