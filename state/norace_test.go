//go:build !race

package state

// modelSeeds are the seeds a model test of the cache runs of its n for case
// i: all of them (see race_test.go).
func modelSeeds(n uint64, _ int) []uint64 {
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i)
	}
	return seeds
}
