//go:build !linux

package memseg

// mapChunk returns n bytes from the Go heap: the kernel's huge pages are
// requested only on Linux.
func mapChunk(n int) ([]byte, bool) { return make([]byte, n), false }

func unmapChunk([]byte) {}

func release([]byte) {}
