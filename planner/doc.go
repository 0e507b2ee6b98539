// Package planner turns SQL statements into jobs: it keeps the session's
// catalog, binds queries into a logical plan (binding and type checking,
// with positioned errors), rewrites the plan (Optimize), renders it for
// EXPLAIN, and compiles it into an exec.Graph (Compile), one type switch
// over the logical nodes.
//
// # Tables, metadata, partitions and files
//
// A CREATE TABLE's columns are physical, METADATA or computed. The
// connector reads the physical and metadata columns (Table.Physical, with
// Table.Meta giving each metadata key), and computed columns are
// expressions over them; a connector writes the physical and the
// non-VIRTUAL metadata columns (Table.Sink), so INSERT skips VIRTUAL ones
// as Flink does and the connector refuses what it cannot write.
// PARTITIONED BY must name physical columns (Table.Partitions). The
// connector's refusals are placed on the column, its metadata key or its
// name in PARTITIONED BY (columnPos); option errors on the key, or on the
// value when the value is at fault (a path).
//
// A CREATE TABLE does not look at files: a table may be declared before
// its file exists. Compiling a job to run (Env.CheckFiles, not EXPLAIN)
// checks each filesystem source's path exists and each sink's is no
// regular file (connector.Check), so the INSERT or SELECT fails before its
// job starts. The error points at the path in the CREATE TABLE, which may
// be in an earlier statement or file: a Table keeps the text and file it
// was declared in (from the session that executes it: session.Session.File), and an Error carries
// them for FormatError.
//
// # Literal arguments
//
// A literal argument that a function cannot use (a DATE_FORMAT pattern
// letter strand lacks, a LIKE pattern with a bad escape) is refused when
// the query is bound, at the literal. Errors that depend on the rows (a
// CAST of a literal that does not parse) stay runtime errors: a row may
// never reach them.
//
// # Window Top-N
//
// A streaming query can order rows only within a window, because only a
// window ends. strand has two spellings of that, both planned to one
// TopN node and one rank.WindowTopN operator:
//
//   - Flink's window Top-N: ROW_NUMBER() OVER (PARTITION BY window_start,
//     window_end [, more columns] ORDER BY ...) AS rownum as a select item
//     of a query over a window aggregate or a window TVF, bounded by the
//     enclosing query's WHERE rownum <= N (or rownum < N, rownum = 1, N >=
//     rownum; other conditions may be AND-ed to it and filter the numbered
//     rows). rownum may be selected or not; when nothing reads it, it is
//     not computed. RANK and DENSE_RANK (as Flink's StreamExecWindowRank),
//     a lower bound on rownum and a ROW_NUMBER() without a bound are
//     refused.
//   - strand's shorthand: ORDER BY ... [LIMIT n] on a query whose rows are
//     windowed (a window aggregate, a window TVF, or a query over them
//     that selects window_end). Each window's rows are sorted and, with
//     LIMIT, its first n kept, emitted when the window fires. ORDER BY may
//     name a selected column, a position, or an expression over the input.
//     This differs from Flink, where a streaming ORDER BY ... LIMIT is one
//     global Top-N over the whole stream that updates its result as rows
//     arrive; strand has no updating results yet, and a per-window order is
//     what a windowed query can give exactly once. ORDER BY or LIMIT over
//     rows without windows is refused.
//
// NULLs are smallest, as in Flink: first in ascending order and last in
// descending order unless NULLS FIRST or LAST says otherwise. Rows that tie
// on the ORDER BY are ordered by their other columns, ascending, so which
// rows a LIMIT keeps, and their numbers, depend on the rows alone and not on
// the parallelism or the timing of the run.
//
// The Top-N runs at parallelism 1 behind a global edge (a window's first
// rows are first among all of its rows), fires a window when the watermark
// reaches window_end - 1, as the window aggregate does, and checkpoints the
// rows it holds, since rows of a window can be buffered across a barrier.
//
// Over SESSION windows (a session aggregate, or the SESSION TVF, which
// compiles to exec.SessionTVF when no aggregate takes it in) the Top-N also
// partitions by window_start: sessions of several keys may end together
// and are other windows. A session operator holds its watermark back
// (exec.SessionHold), so its output is windowed like a window aggregate's:
// a Top-N, or a window over window_time or SESSION_ROWTIME, finds none of
// its rows late. A window aggregate over a view or subquery of the SESSION
// TVF is refused at its GROUP BY (it would group by window_end alone).
//
// # Deduplication and Top-N outside windows
//
// A ROW_NUMBER() whose PARTITION BY lacks window_start or window_end binds
// to a Rank node (bind_topn.go, rank.go): the enclosing WHERE's bounds on
// rownum (rownum <= N, < N, = N, >= M, > M, BETWEEN M AND N, AND-ed) are
// its rank range Start..End. Once the optimizer has dropped row numbers
// nobody reads, a Rank of the range 1..1 ordered by one time attribute is
// a deduplication (Rank.Dedup, Flink's canConvertToDeduplicate), which is
// why PlanQuery checks changelog modes on the optimized plan. Its changelog
// mode (Rank.Mode) and, for a Top-N, its strategy (Rank.Strategy: by the
// input's mode, and UpdateFast where Rank.UpdateFastKey finds a unique
// key and a monotonic order, rank_update_fast.go) follow Flink's; it
// compiles to a vertex behind a hash exchange on the partition columns
// (compile_rank.go), or a global one at parallelism 1 without them.
// RANK() and DENSE_RANK() bind the same way (Rank.Func), never as a
// deduplication. See package rank.
//
// # DISTINCT, UNION and OVER aggregations
//
// SELECT DISTINCT without GROUP BY or aggregates binds as GROUP BY its
// select list (bind_distinct.go), so over a window TVF's window columns
// it is a window aggregate, as Flink's; over an aggregate, and UNION
// (DISTINCT) over UNION ALL, it is a GroupAgg of all columns without
// aggregates (GroupAgg.What names it in messages). INTERSECT and EXCEPT
// are refused. Aggregates with OVER bind to an Over node (bind_over.go,
// over.go): one window per SELECT (inline or of the WINDOW clause),
// ordered by an event-time attribute, with a frame that ends at the
// current row; its input is the FROM's columns then the partition and
// argument expressions, and the select list reads each OVER aggregate as
// the Over's column. It compiles to package over's operator behind a hash
// exchange on the partition (global at parallelism 1 without one), its
// source dropping rows before their split's watermark as late (a row at
// the watermark is on time, and the operator holds its output's
// watermark one behind).
//
// # Grouping sets
//
// GROUPING SETS, ROLLUP, CUBE, parenthesised lists and () in GROUP BY
// (parser.GroupingElement) are planned as Flink plans them
// (DecomposeGroupingSetsRule): groupingOf (grouping.go) expands the GROUP
// BY, besides the window, into its keys, each once in the order first
// written, and its grouping sets, the cross product of its elements' sets;
// an Expand node under the aggregate emits each row once per set, with the
// keys the set lacks NULL and a BIGINT $e, the set's id: bit nk-1-i is set
// when key i is absent (the first key is the most significant bit, so
// Flink's plans and strand's have the same $e), and the sets are in
// ascending $e, as in Flink's Expand. The window or group aggregate above
// groups by the keys and $e, so a NULL key value and an absent key are
// different groups. GROUPING, GROUPING_ID and GROUP_ID are CASEs over $e,
// or literals where every set gives one value (0 without grouping sets).
// A set listed twice yields its rows twice, as in Calcite, whose RelBuilder
// makes a union of aggregates for it; here its copies get their ordinal
// above the key bits of $e, which GROUP_ID reads. A GROUP BY with one
// grouping set needs no Expand. $e is hidden in the aggregate's output
// scope (column.hidden): SELECT * and names do not see it.
//
// The Expand compiles to exec.Expand, chained into the vertex of its
// input, so the hash exchange after it partitions the copies of a row by
// their own keys and $e; the source drops late rows before it, so a late
// row is counted once. An aggregate's uid over an Expand encodes its
// grouping sets and its keys' expressions (expandCanon): GROUPING SETS
// ((a, b), (a)) and ((a, b), (b)) have the same keys and aggregates. Other
// aggregates' uids do not change.
//
// Decisions, where Flink is silent or strand cannot follow: window_start
// and window_end must be grouped by directly (Flink's documented rule,
// checked by windowInGrouping); the legacy GROUP BY TUMBLE(...) windows
// take no grouping sets (FLINK-21253 asked for them; Flink's docs list
// grouping sets among what only window TVFs have); SESSION windows are
// formed per group key and so per grouping set, which is exact, but a
// SESSION TVF's PARTITION BY, which must name the group keys
// (groupWindow.checkPartition), is refused with grouping sets; at most
// 4096 grouping sets and 62 keys (Flink's grouping id is a BIGINT too).
//
// # Hints
//
// The parser keeps the hints after a SELECT and after a table name; the
// binder gives each an effect or refuses it with its position (bind_hint.go),
// so that no hint a user wrote is silently ignored. UID('name') names the one
// stateful operator its SELECT defines: the window aggregate of its GROUP BY,
// the Top-N of its ORDER BY ... LIMIT, or the Top-N whose rownum its WHERE
// bounds (the SELECT with ROW_NUMBER() defines no operator by itself). The
// binder records what each SELECT defines while binding it (binder.made)
// and sets UIDHint on that node; uids must differ within a statement, hinted
// or derived. OPTIONS('k' = 'v', ...) after a table, or an INSERT target,
// binds that reference to a copy of the table whose WITH options it
// overrides, checked for reading or writing. Every other hint is "not
// supported yet".
//
// # Changelog modes, joins and unions
//
// Every node has a changelog mode (ChangelogMode, derived bottom-up as
// Flink's FlinkChangelogModeInferenceProgram; EXPLAIN shows it per node):
// the row kinds it emits, and an upsert key. Windows and Top-N are
// insert-only, and so are scans but those of changelog sources (below); a Join and a Union derive theirs from their inputs
// (Join.Mode, Union.Mode). checkChangelog, run by PlanQuery, refuses a
// window operator or an append-only sink (Table.Appends) fed updates, at
// the sink and naming the join that makes them. A Join binds FROM a JOIN b
// ON ... (bind_join.go: the equalities of a column of each side are its
// keys, the rest its residual condition), FROM a, b WHERE ... (bind_comma.go:
// each WHERE term goes to the first join that has its tables, one table's
// filtering it before), WHERE x IN (SELECT ...) and EXISTS as a SemiJoin,
// NOT IN and NOT EXISTS as an AntiJoin (bind_exists.go; NOT IN null-aware
// where a column may be NULL); it compiles to a two-input vertex behind a
// hash exchange on each side's keys (join.Join). Bounds of one side's
// event time by the other's over insert-only inputs make it an interval
// join (Join.Interval, interval.go), compiled to join.IntervalJoin with
// its inputs' sources dropping rows behind their split's watermark
// (compile_interval.go). A Filter above a join moves its one-side terms
// below it (pushIntoJoin). A Union compiles to a vertex reading its
// inputs by forward edges, so a retraction keeps its place behind what it
// retracts. A table scanned twice gets a second source uid (sourceUID).
//
// # Temporal joins
//
// A JOIN whose right side is a table or view FOR SYSTEM_TIME AS OF a
// left time attribute is a temporal join (temporal.go: Join.Temporal),
// INNER or LEFT over an append-only left side. AS OF an event-time column
// it is Flink's versioned table join: the right side needs an event-time
// attribute and a key (versionKeys: a scanned table's PRIMARY KEY through
// filters and projections, else the upsert keys, a deduplication's
// partition) within the equi-keys; it compiles to join.TemporalJoin with
// both inputs' sources dropping rows behind their split's watermark, as an
// interval join's (compile_temporal.go; a right side behind a normalize or
// a deduplication cannot, and is joined as it comes). AS OF a PROCTIME()
// column it is a lookup join, which strand runs against a bounded,
// insert-only right side (lookupTable) read whole first (join.LookupJoin),
// so that its result does not depend on timing. An equality of a right
// column with an expression of the left side's columns is a key too: the
// expression is computed as an extra left column in a projection below the
// join, which a projection above drops. Filters on the right side stay
// above the join (pushIntoJoin): a filtered-out version would let the one
// before it match. The output appends and keeps the left side's time
// attributes.
//
// # Window joins
//
// Every node may have window properties (windowPropsOf, as Flink's
// RelWindowProperties): the sets of columns holding window_start,
// window_end and window_time of one window spec. A window TVF, a window
// aggregate and a window join (both sides' columns but a padded side's)
// make them; a Filter, a TopN and a Project that keeps the columns
// (renames, views, subqueries and CTEs are projections once bound) pass
// them on, and a Union keeps those all its inputs of one window have. When both inputs of a join have them and its keys equate
// both window_start and window_end, the join is a window join (Join.Window,
// window_join.go), checked where it is bound so that its refusals have the
// JOIN's position: windows that differ, one of the columns equated, SESSION
// or processing-time windows, an updating input. A window TVF below a
// window join stays an operator (exec.AssignWindow) that gives each row
// its windows, as Flink's window join takes rows that carry them; its
// source drops late rows per split as for any window. Semi and anti joins
// of IN and EXISTS subqueries correlated on the windows become window
// joins the same way (correlatedIn binds a correlated IN as EXISTS is
// bound). At the binder's level (winCols), an event-time window
// aggregate's rows count as windowed, so GROUP BY window_start, window_end
// over them is a window aggregate of rows that come with their window
// (WindowAgg.Assigned), Flink's cascading window aggregate.
//
// # Changelog sources and sinks
//
// A scan's mode is its connector's (connector.SourceChangelog): a
// debezium-json table is a retract stream, an upsert-kafka one upserts by
// its primary key. After the optimizer's rules, planSinks (upsert.go)
// puts a Normalize (Flink's ChangelogNormalize, rank.Normalize) over each
// upsert scan, and decides how each sink with a primary key fed updates
// takes them, from the upsert keys of its input (UpsertKeys): a
// Materialize (Flink's SinkUpsertMaterializer, rank.Materialize) keyed by
// the primary key when no upsert key lies within it, else the changelog
// as it is, without its -U rows for an upsert sink keyed exactly by one
// (Sink.DropBefore). checkChangelog refuses updates to a sink that
// appends (connector.SinkChangelog), naming the changelog source or the
// operator that makes them; a window over a changelog source is refused
// as one over a join's updates is.
//
// # Nested types
//
// ROW<...>, ARRAY<t> and MAP<k, v> columns (typename_nested.go) are read
// through GetField, ElementAt and Cardinality (bind_nested.go). A dotted
// name that no column has is resolved as Calcite does: the longest prefix
// that names a column (a table's alias first, so t.r is table t's column
// r), the rest its fields; an ambiguous prefix is an error at the name. A
// field of a nullable ROW is nullable. Decisions: strand computes no
// nested value (constructors, a CASE or COALESCE over ROWs, casts of
// them) and compares none; nested values are no keys (GROUP BY, join,
// PARTITION BY, ORDER BY, DISTINCT) and are not kept in state (joins,
// Top-N, deduplication, aggregates), because binary rows and normalized
// keys have no encoding for them yet: each is refused at plan time with
// its position (the operators' own checks, placed by the planner), and
// fields of ROWs are fine everywhere. Projection pushdown
// (prune_nested.go): prunedScan narrows a ROW column a query reads only
// fields of to those fields (recomputing the types of the fields read,
// refield, since GetField names its field), shows them in EXPLAIN as
// reads [person{id, dateTime}], and hands the source the filter's
// column = integer terms (connector.Table.Equal), which the nexmark source
// of Flink's shape uses to make one kind of event. In a statement set,
// whose scans of a table must read alike, ROWs are read whole and no
// equality is passed.
// Above a join, the fields read of a ROW column (and nothing else of
// it) are read below the join instead (fieldsBelowJoin, join_fields.go):
// each becomes a column of its side, so the join's state keeps the
// scalars and pruneJoin drops the ROW.
//
// FROM t CROSS JOIN UNNEST(arr) and [LEFT] JOIN UNNEST(...) ON TRUE bind
// to an Unnest node (unnest.go), Flink's Correlate over UNNEST: the array
// as a column of t (a Project adds it when it is an expression), the
// element after t's columns, and a Project above that names the columns
// (an array of ROWs' fields by GetField). It compiles to exec.Unnest,
// chained into its input's vertex: stateless, keeping row kinds and time
// attributes.
//
// # Statement sets and LIKE
//
// PlanQuery plans a statement set (EXECUTE STATEMENT SET) as a SinkSet of
// its INSERTs' plans, each planned alone so that its uids are what they
// would be alone; two INSERTs into one table, or with one stateful uid,
// are refused. Compile compiles them into one graph, then shares the
// sources that read one table with the same options (statement_set.go):
// before compiling, the columns every scan of a table needs are gathered,
// so all its scans read their union and are alike; the first source keeps
// its uid. CREATE TABLE ... LIKE merges the source table's declaration
// into a plain CREATE TABLE with Flink's rules (like.go) before binding.
//
// # Members
//
// Several strand processes may run one query (Env.Members; members.go):
// Kafka partitions are the unit of scale, each member reads its share of
// every source's splits and runs the whole pipeline on them. A keyed
// window aggregate gets its rows through a repartition topic
// (connector.Repartition) that the compiler puts between the aggregate's
// input and its exchange: the input's vertex ends in the topic's
// exactly-once writer, and a new source vertex reads the partitions of
// the key groups this member owns, feeding the hash exchange as before.
// The topic is named after the job (alike in every member) and the
// aggregate's uid, on the brokers of the kafka table the input reads.
// Any other keyed exchange is refused when there are several members:
// its key's rows would be split among them.
package planner
