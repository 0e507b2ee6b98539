package expr

import (
	"os"
	"testing"
)

// TestMain runs the package's tests in the allocator's poison debug
// mode: the buffers the evaluator and Take take unzeroed (AllocNoZero)
// come filled with garbage, so that every test of values, of every type,
// NULLs and offsets (the property test's random expressions, Take and
// evaluation of every type) also checks that they write every byte.
func TestMain(m *testing.M) {
	SetAllocPoison(true)
	os.Exit(m.Run())
}
