package session

import (
	"fmt"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/planner"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/strandsql/strand/types"
)

// Session options. SET and --set take strand's own keys, which are
// checked and used, and Flink's, which are accepted with a warning that
// strand ignores them, so that Flink scripts run; any other key is an
// error (a misspelt key would otherwise be ignored silently).

// KeyTimeZone is Flink's session time zone; strand's is always UTC.
const KeyTimeZone = "table.local-time-zone"

// SetOption is SET 'k' = 'v' for the command line's --set: the same
// checks, and an error that matches planner.ErrOption but has no position.
func (s *Session) SetOption(k, v string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.setOption(k, v); err != nil {
		return &flagError{err.Error()}
	}
	return nil
}

// setOption checks k and v and sets k = v, warning on Log of a Flink key
// that strand ignores. atValue says that v, not k, was refused.
func (s *Session) setOption(k, v string) (atValue bool, err error) {
	strands, err := checkKey(k)
	if err != nil {
		return false, err
	}
	if err := checkValue(k, v); err != nil {
		return true, err
	}
	if !strands {
		fmt.Fprintln(s.Log, ignored(k))
	}
	s.Config[k] = v
	return false, nil
}

// strandKeys are the keys strand reads, with their value checks (nil:
// checked where the value is used).
var strandKeys = map[string]func(v string) error{
	KeyParallelism:        positiveInt,
	KeyBatchSize:          positiveInt,
	KeyMemory:             memorySize,
	KeyTimeZone:           utc,
	KeyCheckpointInterval: nil,
	KeyCheckpointMode:     nil,
	KeyCheckpointRetained: nil,
	KeyCheckpointTimeout:  positiveDuration,
	KeyCheckpointPause:    duration,
	KeyTolerableFailures:  nil,
	KeyRestartStrategy:    nil,
	KeyRestartAttempts:    nil,
	KeyRestartDelay:       nil,
	KeyStateDir:           nil,
	KeySavepointPath:      localPath,
	KeyIgnoreUnclaimed:    boolean,
	KeySavepointDir:       localPath,
	KeyResultMode:         resultMode,
	KeyMaxRows:            positiveInt,
	KeyHistoryFile:        nil,
	KeyMiniBatch:          boolean,
	KeyMiniBatchLatency:   nil,
	KeyMiniBatchSize:      positiveInt,
	KeyStateTTL:           stateTTLValue,
	KeyIdleTimeout:        duration,
}

// The REPL's keys (Flink's SQL client's): how a SELECT's result is shown,
// and how many of its rows are kept.
const (
	KeyResultMode = "sql-client.execution.result-mode"
	KeyMaxRows    = "sql-client.display.max-rows"
)

// resultMode accepts the SQL client's result modes.
func resultMode(v string) error {
	switch strings.ToLower(v) {
	case "tableau", "table", "changelog":
		return nil
	}
	return fmt.Errorf("must be 'tableau', 'table' or 'changelog', got '%s'", v)
}

// duration accepts a duration of at least zero, such as '5 s' or '500 ms'.
func duration(v string) error {
	if d, err := types.ParseDuration(v); err != nil || d < 0 {
		return fmt.Errorf("must be a duration such as '5 s' or '500 ms', got '%s'", v)
	}
	return nil
}

// positiveDuration accepts a duration of more than zero.
func positiveDuration(v string) error {
	if d, err := types.ParseDuration(v); err != nil || d <= 0 {
		return fmt.Errorf("must be a positive duration such as '10 min' or '30 s', got '%s'", v)
	}
	return nil
}

// localPath refuses a URL where only checkpoints may be on object
// storage: savepoints are written and read on the local filesystem, and
// "s3://b/sp" as a path would be a local directory named "s3:".
func localPath(v string) error {
	if checkpoint.IsURL(v) {
		return fmt.Errorf("savepoints are on the local filesystem; '%s' is a URL (only state.checkpoints.dir takes one)", v)
	}
	return nil
}

func boolean(v string) error {
	if !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
		return fmt.Errorf("must be true or false, got '%s'", v)
	}
	return nil
}

func positiveInt(v string) error {
	if n, err := strconv.Atoi(v); err != nil || n <= 0 {
		return fmt.Errorf("must be a positive integer, got '%s'", v)
	}
	return nil
}

func memorySize(v string) error {
	if n, ok := types.ParseMemorySize(v); !ok || n < exec.MinMemory {
		return fmt.Errorf("must be a memory size of at least 32kb such as '256mb', got '%s'", v)
	}
	return nil
}

func utc(v string) error {
	switch strings.ToUpper(v) {
	case "UTC", "GMT", "Z", "ETC/UTC", "+00:00":
		return nil
	}
	return fmt.Errorf("must be 'UTC', strand's only session time zone, got '%s'", v)
}

// flinkKeys are Flink's session and job options that a Flink SQL script
// may SET, from Flink's configuration reference (1.15 to 1.20: the classes
// ExecutionConfigOptions, OptimizerConfigOptions, TableConfigOptions,
// SqlClientOptions, ExecutionOptions, PipelineOptions, CoreOptions,
// CheckpointingOptions, ExecutionCheckpointingOptions,
// StateBackendOptions, StateRecoveryOptions, RestartStrategyOptions,
// TaskManagerOptions, JobManagerOptions and DeploymentOptions). Keys in
// strandKeys are strand's, not listed here.
var flinkKeys = setOf(
	// table.exec.*
	"table.exec.source.cdc-events-duplicate",
	"table.exec.sink.not-null-enforcer",
	"table.exec.sink.type-length-enforcer",
	"table.exec.sink.upsert-materialize",
	"table.exec.sink.keyed-shuffle",
	"table.exec.sink.rowtime-inserter",
	"table.exec.sink.nested-constraint-enforcer",
	"table.exec.sort.default-limit",
	"table.exec.sort.max-num-file-handles",
	"table.exec.sort.async-merge-enabled",
	"table.exec.spill-compression.enabled",
	"table.exec.spill-compression.block-size",
	"table.exec.resource.default-parallelism",
	"table.exec.resource.external-buffer-memory",
	"table.exec.resource.hash-agg.memory",
	"table.exec.resource.hash-join.memory",
	"table.exec.resource.sort.memory",
	"table.exec.window-agg.buffer-size-limit",
	"table.exec.async-lookup.buffer-capacity",
	"table.exec.async-lookup.timeout",
	"table.exec.async-lookup.output-mode",
	"table.exec.async-scalar.buffer-capacity",
	"table.exec.async-scalar.timeout",
	"table.exec.async-scalar.retry-strategy",
	"table.exec.async-scalar.retry-delay",
	"table.exec.async-scalar.max-attempts",
	"table.exec.disabled-operators",
	"table.exec.shuffle-mode",
	"table.exec.legacy-cast-behaviour",
	"table.exec.rank.topn-cache-size",
	"table.exec.topn-cache-size",
	"table.exec.simplify-operator-name-enabled",
	"table.exec.deduplicate.insert-update-after-sensitive-enabled",
	"table.exec.deduplicate.mini-batch.compact-changes-enabled",
	"table.exec.interval-join.min-cleanup-interval",
	"table.exec.local-hash-agg.adaptive.enabled",
	"table.exec.local-hash-agg.adaptive.sampling-threshold",
	"table.exec.local-hash-agg.adaptive.distinct-value-rate-threshold",
	"table.exec.unbounded-over.version",
	"table.exec.uid.generation",
	"table.exec.uid.format",
	"table.exec.emit.early-fire.enabled",
	"table.exec.emit.early-fire.delay",
	"table.exec.emit.late-fire.enabled",
	"table.exec.emit.late-fire.delay",
	"table.exec.emit.allow-lateness",
	"table.exec.hive.fallback-mapred-reader",
	"table.exec.hive.infer-source-parallelism",
	"table.exec.hive.infer-source-parallelism.max",
	// table.optimizer.*
	"table.optimizer.agg-phase-strategy",
	"table.optimizer.distinct-agg.split.enabled",
	"table.optimizer.distinct-agg.split.bucket-num",
	"table.optimizer.join-reorder-enabled",
	"table.optimizer.join.broadcast-threshold",
	"table.optimizer.multiple-input-enabled",
	"table.optimizer.reuse-source-enabled",
	"table.optimizer.reuse-sub-plan-enabled",
	"table.optimizer.reuse-optimize-block-with-digest-enabled",
	"table.optimizer.source.report-statistics-enabled",
	"table.optimizer.source.aggregate-pushdown-enabled",
	"table.optimizer.source.predicate-pushdown-enabled",
	"table.optimizer.dynamic-filtering.enabled",
	"table.optimizer.runtime-filter.enabled",
	"table.optimizer.non-deterministic-update.strategy",
	"table.optimizer.sql2rel.project-merge.enabled",
	"table.optimizer.union-all-as-breakpoint-enabled",
	"table.optimizer.incremental-agg-enabled",
	"table.optimizer.bushy-join-reorder-threshold",
	"table.optimizer.adaptive-broadcast-join.strategy",
	"table.optimizer.skewed-join-optimization.strategy",
	// table.*
	"table.dml-sync",
	"table.dynamic-table-options.enabled",
	"table.sql-dialect",
	"table.plan.compile.catalog-objects",
	"table.plan.restore.catalog-objects",
	"table.plan.force-recompile",
	"table.generated-code.max-length",
	"table.generated-code.max-members",
	"table.builtin-catalog-name",
	"table.builtin-database-name",
	"table.resources.download-dir",
	"table.display.max-column-width",
	"table.column-expansion-strategy",
	"table.catalog-modification.listeners",
	"table.rtas-ctas.atomicity-enabled",
	"table.exec.legacy-transformation-uids",
	// sql-client.*
	"sql-client.execution.max-table-result.rows",
	"sql-client.display.max-column-width",
	"sql-client.display.print-time-cost",
	"sql-client.display.show-line-numbers",
	"sql-client.verbose",
	// execution.*
	"execution.runtime-mode",
	"execution.target",
	"execution.attached",
	"execution.shutdown-on-attached-exit",
	"execution.job-listeners",
	"execution.buffer-timeout",
	"execution.buffer-timeout.enabled",
	"execution.batch-shuffle-mode",
	"execution.batch.adaptive.auto-parallelism.enabled",
	"execution.sorted-inputs.enabled",
	"execution.sorted-inputs.memory",
	"execution.checkpointing.externalized-checkpoint-retention",
	"execution.checkpointing.max-concurrent-checkpoints",
	"execution.checkpointing.unaligned",
	"execution.checkpointing.unaligned.enabled",
	"execution.checkpointing.unaligned.forced",
	"execution.checkpointing.aligned-checkpoint-timeout",
	"execution.checkpointing.alignment-timeout",
	"execution.checkpointing.force",
	"execution.checkpointing.checkpoints-after-tasks-finish.enabled",
	"execution.checkpointing.interval-during-backlog",
	"execution.checkpointing.incremental",
	"execution.checkpointing.dir",
	"execution.checkpointing.savepoint-dir",
	"execution.checkpointing.storage",
	"execution.checkpointing.snapshot-compression",
	"execution.checkpointing.cleaner.parallel-mode",
	"execution.checkpointing.local-backup.enabled",
	"execution.checkpointing.create-subdir",
	"execution.checkpointing.file-merging.enabled",
	"execution.savepoint-restore-mode",
	"execution.savepoint.restore-mode",
	"execution.state-recovery.path",
	"execution.state-recovery.claim-mode",
	"execution.state-recovery.ignore-unclaimed-state",
	"execution.state-recovery.from-local",
	// pipeline.*
	"pipeline.name",
	"pipeline.jars",
	"pipeline.classpaths",
	"pipeline.auto-generate-uids",
	"pipeline.auto-watermark-interval",
	"pipeline.closure-cleaner-level",
	"pipeline.force-avro",
	"pipeline.force-kryo",
	"pipeline.generic-types",
	"pipeline.global-job-parameters",
	"pipeline.max-parallelism",
	"pipeline.object-reuse",
	"pipeline.operator-chaining",
	"pipeline.operator-chaining.enabled",
	"pipeline.operator-chaining.chain-operators-with-different-max-parallelism",
	"pipeline.cached-files",
	"pipeline.default-kryo-serializers",
	"pipeline.registered-kryo-types",
	"pipeline.registered-pojo-types",
	"pipeline.serialization-config",
	"pipeline.vertex-description-mode",
	"pipeline.vertex-name-include-index-prefix",
	"pipeline.watermark-alignment.allow-unaligned-source-splits",
	"pipeline.jobvertex-parallelism-overrides",
	// state.*
	"state.backend",
	"state.backend.type",
	"state.backend.incremental",
	"state.backend.local-recovery",
	"state.backend.rocksdb.localdir",
	"state.backend.rocksdb.memory.managed",
	"state.backend.rocksdb.predefined-options",
	"state.backend.rocksdb.timer-service.factory",
	"state.backend.latency-track.keyed-state-enabled",
	"state.backend.changelog.enabled",
	"state.backend.changelog.storage",
	"state.checkpoint-storage",
	"state.checkpoints.num-retained",
	"state.checkpoints.create-subdir",
	"state.storage.fs.memory-threshold",
	"state.storage.fs.write-buffer-size",
	"state.ttl.checkpoint",
	// restart-strategy.*
	"restart-strategy.type",
	"restart-strategy.failure-rate.max-failures-per-interval",
	"restart-strategy.failure-rate.failure-rate-interval",
	"restart-strategy.failure-rate.delay",
	"restart-strategy.exponential-delay.initial-backoff",
	"restart-strategy.exponential-delay.max-backoff",
	"restart-strategy.exponential-delay.backoff-multiplier",
	"restart-strategy.exponential-delay.reset-backoff-threshold",
	"restart-strategy.exponential-delay.jitter-factor",
	"restart-strategy.exponential-delay.attempts-before-reset-backoff",
	// cluster and memory
	"taskmanager.numberOfTaskSlots",
	"taskmanager.memory.process.size",
	"taskmanager.memory.flink.size",
	"taskmanager.memory.task.heap.size",
	"taskmanager.memory.task.off-heap.size",
	"taskmanager.memory.framework.heap.size",
	"taskmanager.memory.framework.off-heap.size",
	"taskmanager.memory.managed.size",
	"taskmanager.memory.managed.fraction",
	"taskmanager.memory.managed.consumer-weights",
	"taskmanager.memory.network.min",
	"taskmanager.memory.network.max",
	"taskmanager.memory.network.fraction",
	"taskmanager.memory.jvm-metaspace.size",
	"taskmanager.memory.jvm-overhead.min",
	"taskmanager.memory.jvm-overhead.max",
	"taskmanager.memory.jvm-overhead.fraction",
	"jobmanager.memory.process.size",
	"jobmanager.memory.flink.size",
	"jobmanager.memory.heap.size",
	"jobmanager.memory.off-heap.size",
	"jobmanager.memory.jvm-metaspace.size",
	"jobmanager.memory.jvm-overhead.min",
	"jobmanager.memory.jvm-overhead.max",
	"jobmanager.memory.jvm-overhead.fraction",
	"jobmanager.scheduler",
	"jobmanager.adaptive-scheduler.resource-wait-timeout",
	"jobmanager.execution.failover-strategy",
	"heartbeat.interval",
	"heartbeat.timeout",
	"akka.ask.timeout",
	"pekko.ask.timeout",
)

func setOf(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// checkKey says whether strand reads k; a key that is neither strand's
// nor Flink's is an error naming the known keys closest to it.
func checkKey(k string) (strands bool, err error) {
	if _, ok := strandKeys[k]; ok {
		return true, nil
	}
	if flinkKeys[k] {
		return false, nil
	}
	if close := closeKeys(k); len(close) > 0 {
		return false, fmt.Errorf("unknown option '%s'; did you mean %s?", k, quoteList(close, "or"))
	}
	return false, fmt.Errorf("unknown option '%s': neither strand's nor Flink's (strand's options: %s)", k, strings.Join(slices.Sorted(maps.Keys(strandKeys)), ", "))
}

// checkValue checks v for k, one of strand's keys.
func checkValue(k, v string) error {
	if f := strandKeys[k]; f != nil {
		if err := f(v); err != nil {
			return fmt.Errorf("'%s' %w", k, err)
		}
	}
	return nil
}

// flagError is a refused option without a position (a --set flag).
type flagError struct{ msg string }

func (e *flagError) Error() string        { return e.msg }
func (e *flagError) Is(target error) bool { return target == planner.ErrOption }

// equivalents are Flink keys (of other Flink versions, or cluster-wide)
// for what strand reads under another key.
var equivalents = map[string]string{
	"state.checkpoints.num-retained":                  KeyCheckpointRetained,
	"execution.checkpointing.dir":                     KeyStateDir,
	"restart-strategy.type":                           KeyRestartStrategy,
	"taskmanager.memory.managed.size":                 KeyMemory,
	"table.exec.resource.default-parallelism":         KeyParallelism,
	"execution.state-recovery.path":                   "execution.savepoint.path",
	"execution.state-recovery.ignore-unclaimed-state": "execution.savepoint.ignore-unclaimed-state",
}

// ignored is the warning for a Flink key strand does not implement.
func ignored(k string) string {
	w := fmt.Sprintf("warning: '%s' is a Flink option that strand does not implement; it has no effect", k)
	if e, ok := equivalents[k]; ok {
		w += fmt.Sprintf(" (strand reads '%s')", e)
	}
	return w
}

// closeKeys returns the known keys closest to k, if within a small edit
// distance: at most 3, all equally close.
func closeKeys(k string) []string {
	limit := max(2, len(k)/5)
	type cand struct {
		key string
		d   int
	}
	var cs []cand
	consider := func(c string) {
		if d := EditDistance(strings.ToLower(k), strings.ToLower(c)); d <= limit {
			cs = append(cs, cand{c, d})
		}
	}
	for c := range strandKeys {
		consider(c)
	}
	for c := range flinkKeys {
		consider(c)
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.key, b.key)
	})
	var out []string
	for _, c := range cs {
		if c.d > cs[0].d || len(out) == 3 {
			break
		}
		out = append(out, c.key)
	}
	return out
}

// EditDistance is the Levenshtein distance between a and b, in bytes:
// what "did you mean" suggestions are ranked by.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func quoteList(items []string, conj string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = "'" + s + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " " + conj + " " + q[len(q)-1]
}
