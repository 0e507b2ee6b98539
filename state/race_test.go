//go:build race

package state

// modelSeeds are the seeds a model test of the cache runs of its n for case
// i. Under the race detector only one, even and odd by turns over the
// cases, so that both kinds (the odd ones restore, in TestCacheModel) still
// run under it: the detector makes Pebble (and the invariant checks it
// turns on under race) an order of magnitude slower and can find no race in
// the single-goroutine cache. make test runs this package again without
// it, with every seed.
func modelSeeds(n uint64, i int) []uint64 { return []uint64{uint64(i) % 2 % n} }
