// Package state holds strand's keyed operator state: one Pebble DB per
// operator subtask (a Store), its snapshots for checkpoints, and read-only
// views of checkpointed state for restores, at the same or a new
// parallelism.
//
// # Keys
//
// Every entry belongs to an operator (its uid, stable across plans), a key
// group, a state name (one operator may keep several kinds of state) and a
// user key, normally a memseg normalized key. The Pebble key is
//
//	uvarint(len(uid)) uid | key group (big-endian uint16) | uvarint(len(name)) name | user key
//
// so all of an operator's state is one key range, and within it each key
// group is one contiguous range, in key-group order: reading or restoring
// a key-group range is one bounded scan, which is what rescaling needs.
// Within a key group, entries sort by name (length first) and then by user
// key, so a window operator that encodes window end before the key reads
// its windows in firing order. This layout is part of the checkpoint
// format.
//
// A Store has no write-ahead log and syncs nothing in its directory (not a
// commit, an SST, the MANIFEST, nor a snapshot's files: scratchFS): it is
// scratch space, and what survives a crash is what the last complete
// checkpoint holds, whose files checkpoint storage syncs as it receives
// them. Recovery always rebuilds state from a checkpoint, never from a
// Store's own directory.
//
// So a Store's directory can go, under a running job, without a loss
// (logger): a read that meets a table gone or corrupt fails with an error
// naming the file, which fails the job, and the job restarts from its
// latest checkpoint into a new Store. A flush that cannot create its
// table because the directory is gone would keep writes waiting for ever
// (Pebble retries it), and nothing wakes them: then, as on anything
// Pebble calls fatal, the process exits with one line that names the
// directory, never a stack trace. Like a kill, that keeps every
// checkpoint taken; the job's next run resumes from the latest. A flush
// or compaction that fails for another reason (a full disk) is retried
// with pauses of up to a second, logged once and then every 10 s, and
// writes wait until it goes through: nothing is lost.
//
// # Snapshots and incremental uploads
//
// A checkpoint of a Store has two parts, as in Flink's RocksDB backend.
// Snapshot, the synchronous part, runs at the barrier: it flushes the
// memtables and takes a Pebble checkpoint, hard links to the immutable
// SSTs and copies of the small mutable files (MANIFEST, OPTIONS, markers),
// into a local directory. Upload, the asynchronous part, copies that
// directory into checkpoint storage (a Target) while the operator goes on
// processing, and returns the Handle that the checkpoint's metadata keeps.
//
// Uploads are incremental. SSTs and blob files never change once written,
// and Pebble never reuses a file name within a DB, so the Store remembers
// where each of its SSTs went the first time and later uploads reference
// it there instead of copying it again, after asking the Target whether it
// still holds it. The OPTIONS file, the markers and the empty write-ahead
// log, which Pebble writes into every snapshot with the same bytes, are
// shared files too, referenced again while their bytes stay the same. A
// checkpoint after little change copies one or two small SSTs and the few
// kilobytes of its MANIFEST. Storage names every
// file it is given afresh (Target.PutShared); the Store never trusts a
// name alone, since two subtasks' DBs, or a DB rebuilt after a restore,
// produce the same SST names with different contents.
//
// A store written by one ingested SST per checkpoint (a window
// aggregate's) takes delta snapshots instead (delta.go,
// Store.SnapshotDelta): the checkpoint's handle is the files of an
// earlier full snapshot, its base, which the store keeps, followed by the
// SSTs ingested since, its deltas (delta-<n>.sst), which a restore
// ingests in order over the base it opened. Such a checkpoint takes no
// Pebble checkpoint and uploads no MANIFEST: it writes, ingests and
// uploads the SST of what changed. A snapshot is full again, and the next
// base, after 16 deltas, when the deltas would hold more than half the
// base's size, or when anything else wrote to the store (a spill). A
// restore pays for it: with 5 deltas over a million groups it cost 1.4
// times a full snapshot's (docs/performance.md, "Delta snapshots").
//
// A window aggregate writes each checkpoint's changes as one ingested SST
// that spans its key groups (package window's state.go), so it lands in
// L0 over the state, and an L0 compaction would rewrite the state
// beneath. Its Store (OpenIngesting) therefore compacts L0 only at 128
// sublevels, not Pebble's 2 (Pebble compacts at half its
// L0CompactionThreshold: the threshold is 256), and the window rewrites
// its state before that (at MaxIngested SSTs at the latest, or once the
// SSTs hold twice its groups) as a replacing commit (replace.go,
// Sorted.Replace): one SST of the whole state swapped in for every file
// of the store, which lands in the last level and leaves nothing to
// compact. The state is so rewritten once, by the window, where it was
// rewritten twice when the window compacted its parts one by one and
// Pebble compacted the SSTs stacked over them every 64 checkpoints. The
// price is paid by reads (restores, spilled windows): they merge up to
// 127 files that each overlap the whole state, and a restore copies them
// all, the state plus up to as many versions again (docs/performance.md,
// "Rewrites"). A window that spilled does not replace: its store also
// holds the groups it spilled, which a replacing commit would copy at
// every rewrite of the few in memory; its rewrites delete the older
// entries, and Pebble compacts its L0 at 128 sublevels. Its SSTs are not
// compressed, which made up most of a
// compaction's CPU (the state is about twice as large on disk and in
// checkpoints). A store read by point lookups, a join's, keeps Pebble's
// shallow L0 (Open). Every Store's MANIFEST rotates at 4 KiB, since every
// snapshot copies it record by record.
//
// Every Store and Reader has a bloom filter on every level (10 bits a
// key), a 16 MiB memtable and a block cache that all the process's stores
// share (64 MiB): joins, Top-N and group aggregates look up, row by row,
// keys that were never written, and with Pebble's defaults (no filters, a
// 4 MiB memtable, an 8 MiB cache per store) each miss read blocks of every
// level. That took Nexmark q9 from 0.017M to 0.031M events per
// CPU-second, q18 from 0.090M to 0.143M and q20 from 0.025M to 0.082M
// (docs/performance.md). Filters serve Gets only: Pebble filters whole
// keys, and a prefix scan's prefix is not marked in the key. This memory
// is outside managed memory: at most 64 MiB of cache per process and two
// memtables per Store, each grown from 256 KiB only as writes come.
// Snappy compression stays: it is under 3% of a profile of those queries.
//
// The Store forgets an uploaded SST once a snapshot no longer contains it
// (a compaction replaced it): it will never be referenced again by this
// Store, and whether storage may delete it is for retention to decide from
// the checkpoints that remain.
//
// # Caches
//
// A Cache (cache.go) keeps the hot part of an operator's keyed state in
// managed memory, in front of its Store's indexed batch: a regular
// join's rows, a deduplication's kept rows and a Top-N's partitions,
// read and written row by row, which through the batch cost a skiplist and memtable search per
// access (40-45% of the CPU of Nexmark q4 and q18 went there). Its unit
// is a prefix of a state name in a key group (a join key's rows of one
// side, a partition): a scan of the prefix (a join's probe) loads all
// its entries once, and from then on every read under it, of a key
// present or absent, is answered from memory; most probes of a join are
// of keys never written, and those are known absent too (cached, or
// told by the filter of what the store may hold, below). A
// point read of a prefix not loaded (a row's own entry) reads that key
// alone and keeps it, present or absent, in a partial unit, which a
// later scan, or a second point read that goes to the store, completes
// (so that a join key's next new rows are known absent: 17-30% more
// events per CPU-second on q4, q7 and q20 than point reads alone). Writes change the cached entries and mark them
// dirty (a deletion leaves a tombstone where the store may hold the
// key); dirty entries go back to the store, as the same keys and values
// as without a cache, at each checkpoint's snapshot (WriteBack) and when
// the cache is full (Evict: write back, then empty the cache but for the
// prefixes used since the last eviction, up to half the limit, copied into
// fresh segments: a second chance, so hot join keys and partitions are not
// read again).
// So checkpoints, savepoints and rescaling do not know the cache is
// there. A write-back goes in the store's key order (the dirty prefixes
// sorted, each one's entries sorted already). A small one (under 4 MiB
// of records: most checkpoints') goes through a plain batch of the
// cache's own, committed at the end of each: cheaper than the indexed
// batch, whose skiplist index only reads need, and in key order each
// memtable insertion starts where the one before ended (in the order the
// prefixes were dirtied, the skiplist searches took 25% of Nexmark q7's
// CPU). A large one, an eviction's, is written as one SST and ingested
// (writeback.go): that skips the copies into batches and the memtable and
// the flush that reads them out again, and lands as one L0 file, where
// the flushes made one per 16 MiB memtable. Pebble gives an ingested
// file a sequence number above every committed write, so it overrides
// them as a batch committed then would. With the sorted write-backs and
// the reads below that make no unit, Nexmark q7 went from 0.20M to 0.40M
// events per CPU-second and q9 from 0.14M to 0.22M (docs/performance.md,
// "q7 and q9: state write-back").
//
// Memory: records (flags, key and value lengths, key, value) and each
// prefix's sorted array of record addresses are appended to segments of
// the subtask's memseg.Manager; a record replaced by a value of another
// length is left behind until the cache is emptied. The index of
// prefixes (open addressing) and their descriptors are Go slices without
// pointers, charged to the Manager. The cache takes at most the
// operator's share (exec.TaskContext.MemoryShare). A prefix larger than a
// quarter of that, or one that does not fit in the emptied cache, is not
// cached: it is written back and its accesses go to the indexed batch
// until the cache is next emptied, as without a cache. With no managed
// memory (a budget too small to give the cache a share,
// exec.OpSpec.CacheMemory) every access goes to the batch.
//
// A Bloom filter of the prefixes and keys written to the store through
// the cache (held.go) tells a prefix or key that the store surely does not
// hold: a new prefix starts complete and empty, a new key of a partial
// one is absent, with no store read (a prefix scan cannot use Pebble's
// own filters, and the probes of new join keys went to Pebble's blocks).
// A read of such a prefix or key makes no unit or record: the filter
// answers again as fast, and a join's probes of its join keys on the
// other side, mostly absent there, made half of q7's units (its
// evictions halved without them).
// It is off after a restore (the restored keys' prefixes are not known)
// and once saturated.
//
// A TTL sweep (Sweeper.SweepCache) rewrites a key group in the store: it
// first writes back and forgets the group's cached prefixes (Forget),
// which are read again when next touched, and commits its own writes
// before the cache writes back again. Values keep their TTL stamps in
// the cache as in the store, and reads check them as before.
//
// # State TTL
//
// TTL (ttl.go) is the one mechanism behind table.exec.state.ttl for
// every keyed operator that supports it (regular joins, group aggregates,
// deduplications): a stamp, the time of the entry's last write, at the
// start of each value, reads that treat an entry expired at their time as
// absent (NeverReturnExpired), and a Sweeper that deletes expired entries
// key group by key group, keeping ahead of the operator's writes. The
// stamp is always there (one byte without a TTL), so the TTL is not part
// of a state's layout and may change between a savepoint and its
// restore; the clock (event or processing time) is the operator's
// (exec.TTLClock).
//
// # Restores and verification
//
// OpenHandle copies a handle's files from checkpoint storage (a Source)
// into a local directory, checking each file's size and CRC32C as it
// copies, and opens the result read-only. No byte of a file that fails is
// used: the error wraps ErrCorrupt and names the file. A restore at the
// same parallelism scans its whole key-group range from one handle; at a
// new parallelism it opens every old handle whose range overlaps its own
// and scans only the overlap from each, writing what it reads into its new
// Store.
//
// # I/O
//
// All file access goes through Pebble's vfs.FS, so tests run on vfs.NewMem,
// inject errors with vfs/errorfs and simulate power loss with
// vfs.NewCrashableMem.
package state
