// Package checkpoint owns strand's barrier protocol and checkpoint storage:
// the barrier element that sources inject and operators align on, the
// on-disk layout of a job's checkpoints, the _metadata file that completes
// one, verification before any state is used, the choice of checkpoint to
// recover from, and retention. The runtime's checkpoint coordinator
// builds on these.
//
// A barrier travels in the same channels as data, in order: it never
// overtakes a batch and no batch overtakes it. Everything a task processed
// before barrier N is in checkpoint N; nothing after it is.
//
// # Layout
//
// A job's checkpoints live under one root, <state-dir>/checkpoints/<job>:
//
//	shared/<random>-<sst name>   SSTs (and blob files) of any checkpoint,
//	                             shared by the checkpoints that reference them;
//	                             also a delta snapshot's base MANIFEST and its
//	                             deltas (package state's delta snapshots), which
//	                             the checkpoints after it reference
//	chk-<n>/<random>-<name>      the files only checkpoint n uses: each
//	                             subtask's MANIFEST, OPTIONS and markers
//	chk-<n>/_metadata            written last: checkpoint n is complete
//	                             exactly when this file exists and verifies
//	lineage                      the lineage the job's latest run started
//	                             or continued (see Storage.SetLineage)
//	ended                        the lineage whose run ended after its final
//	                             checkpoint (see Storage.SetEnded)
//
// Beside the root, <job>.lock is the job's lock (see Lock): one process at
// a time uses a job's checkpoints and work directory. An OS file lock
// (flock) is used because the kernel drops it with its process, so a
// kill -9 leaves no stale lock; the file records the holder's pid for the
// message that refuses the next one, and is removed on release (a waiter
// that then holds a lock on the removed file notices and locks again).
//
// Per-checkpoint files live in chk-<n>/ rather than a separate taskowned/
// directory, so that a checkpoint and everything only it needs are deleted
// together, and an incomplete checkpoint is one directory to remove. Every
// file gets a fresh random name when it is put, never reused: Pebble's file
// names repeat across subtasks, and across a Store rebuilt by a restore,
// with different contents, so a name in storage must not be trusted to
// stand for a content. Which files a Store has already uploaded is tracked
// by the Store (see package state), and a file is reused only after
// Storage confirms it still holds it.
//
// Paths in _metadata are relative to the root, with / separators, so a
// job's checkpoint directory can be moved or copied as a whole.
//
// # _metadata
//
// A fixed header, then a JSON body:
//
//	"strandck" | format version (uint32) | body length (uint32) | CRC32C of body (uint32) | body
//
// integers little-endian. The body is the Metadata: ID, kind, job,
// creation time, and for each operator its uid, state-schema fingerprint,
// max parallelism and, per subtask, its key-group range, its Handle (every
// file with size and CRC32C) and inline state; for each source its splits'
// positions and watermarks; for each sink its pending (pre-committed)
// files, with size and CRC32C; and whether the job had finished. JSON
// keeps the file readable with standard tools when a user has to look
// into a failed recovery; it is small next to the state, and the header
// makes a damaged or foreign file fail with a clear reason. Version 2 added the pending files' size
// and CRC32C; version 1 is still read, its pending files unverified. A
// reader refuses any other format version.
//
// # Writing a checkpoint
//
// Uploads put each file with a single create, write and sync; their
// directory entries are synced by Write, once. Write checks that every
// file the metadata references is in storage with its size, syncs shared/,
// chk-<n>/ and the root, writes _metadata.tmp, syncs it, renames it to
// _metadata and syncs chk-<n>/. A power loss at any moment leaves either
// no _metadata or one whose every file is durable, and a Write that
// returned nil survives it. IDs increase: Write refuses an ID at or below
// a complete checkpoint's, and NextID gives a restarted job an ID above
// everything a previous run left, so the newest ID is always the newest
// state.
//
// # Verification and recovery
//
// Load reads _metadata (header, version, checksum, that every path is one
// this checkpoint may use) and then every file it references in full,
// comparing size and CRC32C, before it returns: state is never restored
// from a file that has not been checked, and no pending sink file is
// committed unchecked (where it is: still hidden, or already committed
// under its final name). Restores check again as they copy
// (state.OpenHandle), since files may change between the two. A failure
// wraps ErrCorrupt and names the file and the reason: missing, truncated,
// too long, checksum mismatch. A checkpoint directory without _metadata is
// incomplete (ErrIncomplete, which also matches ErrCorrupt): normal after
// a crash, and reported as such, not as corruption. Latest walks checkpoints newest first and returns the first
// that loads, reporting each one it skips. An error that is not
// corruption (a permission, an I/O failure) stops it instead: falling back
// past a checkpoint that may well be good would silently redo work and,
// with sinks that already committed its output, could duplicate it.
//
// # Retention
//
// Retain(keep) runs after a checkpoint completes. It keeps the newest keep
// complete checkpoints, deletes older ones (_metadata first, so a crash
// part-way never leaves a complete-looking checkpoint with files missing)
// and incomplete directories older than the newest complete checkpoint,
// and deletes every shared file that no retained checkpoint references.
// Reference counts are not stored: they are rebuilt on each pass from the
// retained _metadata files, which costs a few small reads and is right
// after any crash or restart.
//
// A shared file that no complete checkpoint references yet may belong to
// a checkpoint in flight, whose upload put it or decided to reuse it. The
// Storage remembers such claims in memory, by checkpoint ID, and Retain
// keeps claimed files until a checkpoint at least as new as the claim
// completes; after that the claim is settled either way, since an older
// checkpoint can no longer complete. Claims die with the process, which is
// right: after a restart no upload of the old run is in flight, and its
// unreferenced files are orphans that the next Retain removes.
//
// # I/O
//
// All file access goes through Pebble's vfs.FS: tests inject write and
// sync errors with vfs/errorfs and simulate power loss with crash clones of
// vfs.NewCrashableMem.
//
// # Object storage
//
// The storage may live in a bucket instead (state.checkpoints.dir as a
// URL, OpenURL): BlobFS serves a gocloud.dev/blob bucket as the vfs.FS
// Storage uses, so the layout, the verification and the retention are
// the same code. What a bucket gives differs, and the commit protocol
// still holds: an object appears whole when its writer closes (Sync is a
// no-op, there is nothing half-written to see), a rename is a copy that
// makes the new name appear whole and then a delete, and _metadata is
// written last, so a checkpoint is visible exactly when it is complete.
// Directories are prefixes. file:// and mem:// are always registered;
// s3:// and gs:// only in a build with -tags cloud (cmd/strand), since
// their SDKs would double the binary. A job's lock (Lock) stays on the
// local filesystem: buckets have no locks.
package checkpoint
