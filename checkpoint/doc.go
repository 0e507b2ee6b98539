// Package checkpoint owns strand's barrier protocol: the barrier element
// that sources inject and operators align on, and (as fault tolerance lands)
// the coordinator, the on-disk checkpoint layout, _metadata and savepoints.
//
// A barrier travels in the same channels as data, in order: it never
// overtakes a batch and no batch overtakes it. Everything a task processed
// before barrier N is in checkpoint N; nothing after it is.
package checkpoint
