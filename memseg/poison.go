package memseg

import (
	"os"
	"sync/atomic"
)

// poison, set by the environment variable STRAND_ALLOC_POISON (the debug
// mode in which exec/expr fills unzeroed memory with garbage), fills
// every block given back (putBlock) with garbage. A block is manual
// memory: an owner that goes on reading one it gave back (an accumulator
// column, a table's slots) reads zeros or stale values that look right;
// under poison it reads garbage, and a test fails. takeBlock zeroes
// blocks as it hands them out, so poison changes nothing else.
var poison atomic.Bool

func init() { poison.Store(os.Getenv("STRAND_ALLOC_POISON") != "") }

// poisonFreed fills freed block b with garbage in the poison debug mode.
func poisonFreed(b []byte) {
	if !poison.Load() {
		return
	}
	for i := range b {
		b[i] = byte(0xa5 ^ i*7)
	}
}
