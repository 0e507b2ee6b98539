// Package connector implements strand's table connectors: the sources and
// sinks named by a CREATE TABLE's 'connector' option. It turns a Table (the
// planner's view of a CREATE TABLE: physical columns and WITH options) into
// an exec.Source or exec.Sink, and validates the options without touching
// any file.
//
//	NewSource(t Table) (exec.Source, error)
//	NewSink(t Table, env Env) (exec.Sink, error)
//	Validate(t Table, asSource bool) error
//	FormatRow(dst []byte, b arrow.RecordBatch, row int) []byte
//
// Option errors are *OptionError values wrapping ErrOption; malformed input
// rows are errors wrapping exec.ErrBadRow that read
//
//	data/clicks.csv:3: column 'amount': cannot parse "x1" as DOUBLE
//
// (the path as the table gives it, joined with the file's name for a
// directory, and the 1-based line).
//
// # Connectors and options
//
// Keys are Flink's where Flink has one. Unknown keys are errors that list
// the valid ones. A connector used the wrong way (reading a print table,
// writing a datagen table) is an error on the key 'connector'. The
// filesystem connector's options are accepted in both directions, because
// one filesystem table is often written by one job and read by another, as
// in Flink; their values are always checked.
//
// filesystem (source and sink):
//
//	path                           required  a file or a directory: a local path or a file:// URI
//	format                         required  csv | json | debezium-json (a changelog, both ways)
//	partition.default-name         __DEFAULT_PARTITION__  the directory name of a NULL or empty partition value
//	sink.rolling-policy.file-size  128MB     roll to a new part file once this size is reached
//	                                         (Flink memory size: 1kb, 64 MB, 2g; units are powers of 1024)
//	source.split-size              8MB       a larger file is read as byte ranges of this size, a split
//	                                         each (strand's own; Flink splits by file-system block)
//	sink.rolling-policy.rollover-interval  30 min  roll a part file open this long
//	sink.rolling-policy.check-interval     1 min   how often the rollover interval is checked
//	sink.partition-commit.policy.kind      none    success-file: commit partitions (metastore, custom refused)
//	sink.partition-commit.trigger          process-time  | partition-time: when a partition is committed
//	sink.partition-commit.delay            0 s     how long after its time (or creation) a partition commits
//	sink.partition-commit.success-file.name  _SUCCESS  the file that marks a committed partition
//	partition.time-extractor.kind          default  (custom refused)
//	partition.time-extractor.timestamp-pattern  the first value  '$dt $hm:00': a partition's time
//	                                         from its values (filesystem_partition_commit.go)
//
// format csv (Flink's csv format; no header line unless csv.ignore-first-line):
//
//	csv.field-delimiter            ,         one ASCII character; '\t' may be spelled as the two characters \t
//	csv.quote-character            "         one ASCII character, not the delimiter
//	csv.disable-quote-character    false     no quoting at all
//	csv.allow-comments             false     skip lines starting with #
//	csv.ignore-parse-errors        false     skip (and count) malformed rows instead of failing
//	csv.null-literal               (none)    a field equal to it, after unquoting, is NULL, for every type;
//	                                         the sink writes NULL as it
//	csv.ignore-first-line          false     skip each file's first line, a header (Flink's option of
//	                                         that name; empty and comment lines before it are not it,
//	                                         as in Flink); the sink writes none
//
// format json (Flink's json format; one object per line):
//
//	json.fail-on-missing-field     false     a missing field is an error instead of NULL
//	json.ignore-parse-errors       false     skip (and count) malformed rows; not with the one above
//
// format debezium-json (Flink's; debezium.go; one message per line or record):
//
//	debezium-json.schema-include   false     messages are {"schema":...,"payload":{...}}; reading only
//	debezium-json.ignore-parse-errors  false  skip (and count) a malformed message whole
//	debezium-json.timestamp-format.standard  SQL  or ISO-8601: how timestamps are written
//	                                         (2024-01-01T10:00:00.000); reading takes both
//
// datagen (source):
//
//	rows-per-second                10000     total across splits; 0 or negative is unthrottled
//	number-of-rows                 (none)    bounds the source
//	seed                           0         values are a pure function of (seed, column name, row number)
//	splits                         1         row k goes to split k mod splits
//	fields.<col>.kind              random    random | sequence (sequence for TIMESTAMP columns)
//	fields.<col>.min, .max         type range  random INT, BIGINT, DECIMAL, DATE, INTERVAL (inclusive);
//	                                         FLOAT, DOUBLE in [min, max), default [0, 1);
//	                                         DECIMAL default [0, 10^(p-s)) (p <= 18); DATE default
//	                                         2000-01-01..2030-12-31
//	fields.<col>.length            100       random STRING length (at most a VARCHAR's length)
//	fields.<col>.start, .end       0, none   sequence: row k is start + k (STRING: its digits; DATE: start
//	                                         date, default 2024-01-01, plus k days); an end bounds the source
//	fields.<col>.start             2024-01-01 00:00:00  TIMESTAMP, TIMESTAMP_LTZ: row k is start + k*step
//	fields.<col>.step              1000      ms between rows: '100 ms', '1 s', '2 min' or plain ms
//	fields.<col>.max-past          0         random TIMESTAMP: start + k*step minus a lag in [0, max-past),
//	                                         so rows are slightly out of order
//	fields.<col>.null-rate         0         probability of NULL
//
// nexmark (source; the Nexmark benchmark's events, see Nexmark below):
//
//	event-type                     (none)    bid | auction | person: a flat table of that kind's
//	                                         events; without it, a table of Flink's shape (below)
//	seed                           0         values are a pure function of (seed, event number, field)
//	splits                         8         epoch e (events e·T .. e·T+T-1) goes to split e mod splits
//	events.num                     0         events of all three types together; 0 is unbounded
//	first-event.rate               10000     events per second of event time (not a throttle)
//	events-per-second              0         a throttle (strand's): events of all kinds per second of
//	                                         wall-clock time across splits; 0 is unthrottled
//	base-time                      2024-01-01 00:00:00  the time of event 0
//	person.proportion              1         person events per epoch (1 to 1000000 each)
//	auction.proportion             3         auction events per epoch
//	bid.proportion                 46        bid events per epoch; T is the sum of the three
//	bid.hot-ratio.auctions         2         a bid is for the hot auction with probability 1 - 1/ratio
//	bid.hot-ratio.bidders          4         a bid is by a hot bidder with probability 1 - 1/ratio
//	auction.hot-ratio.sellers      4         an auction is by a hot seller with probability 1 - 1/ratio
//	person.avg-size                200b      average event sizes that extra pads to, ±20%
//	auction.avg-size               500b      (memory sizes, at most 1 MiB)
//	bid.avg-size                   100b
//	next-event.rate                first-event.rate  must equal it: one rate of event time
//	rate.shape, rate.period        square, 10 min    accepted; with one rate they change nothing
//	rate.limited, max-emit-speed   false, true       only these: event times are not tied to the clock
//	keep-alive, stop-at            false, -1         only these: events.num bounds the stream
//	extended-bid-mode, simulation-mode  false        only false
//
// print (sink):
//
//	print-identifier               (none)    prefix each line with "<identifier>> "
//
// blackhole (sink): no options; discards everything.
//
// kafka (source and sink; Flink's option names, see Kafka below):
//
//	topic                          one topic, or several as 't1;t2' (a sink: exactly one)
//	topic-pattern                  a regular expression over whole topic names, instead of topic
//	properties.bootstrap.servers   required  host:port[,host:port]
//	properties.group.id            (none)    for group-offsets
//	properties.client.id           strand
//	properties.isolation.level     read_committed  or read_uncommitted
//	properties.auto.offset.reset   none      earliest | latest: where group-offsets starts a
//	                                         partition the group never committed
//	properties.transaction.timeout.ms  900000  of exactly-once transactions
//	properties.security.protocol   PLAINTEXT  SSL | SASL_PLAINTEXT | SASL_SSL
//	properties.sasl.mechanism      PLAIN     SCRAM-SHA-256 | SCRAM-SHA-512
//	properties.sasl.jaas.config    (none)    its username="..." and password="..." are used
//	properties.ssl.truststore.location, .type  a PEM file of CA certificates (type PEM only)
//	format | value.format          required  csv | json | raw | debezium-json, with its options as in
//	                                         files (json.*, csv.*; value.json.* with value.format)
//	key.format, key.fields         (none)    the key's format (csv, json, raw; key.json.* ...) and its
//	                                         columns 'a;b'
//	key.fields-prefix              (none)    the key columns' names start with it, their key fields do
//	                                         not; needs value.fields-include EXCEPT_KEY
//	value.fields-include           ALL       or EXCEPT_KEY: the value leaves out the key fields
//	scan.topic-partition-discovery.interval  (none)  '1 min': look for new partitions (and topics
//	                                         the pattern matches) that often; not with scan.bounded.mode
//	scan.startup.mode              group-offsets  earliest-offset | latest-offset | timestamp |
//	                                         specific-offsets (earliest-offset without a group id)
//	scan.startup.timestamp-millis            for timestamp
//	scan.startup.specific-offsets            'partition:0,offset:42;partition:1,offset:300' (one topic)
//	scan.bounded.mode              (none)    latest-offset | group-offsets | timestamp |
//	                                         specific-offsets: a bounded read, stopping there
//	scan.bounded.timestamp-millis, scan.bounded.specific-offsets  as for startup
//	sink.delivery-guarantee        at-least-once  none | exactly-once
//	sink.transactional-id-prefix   (none)    required for exactly-once
//	sink.partitioner               default   Kafka's (murmur2 of the key, sticky without one) |
//	                                         round-robin | fixed (subtask i to partition i mod n)
//
// upsert-kafka (source and sink; a table keyed by its PRIMARY KEY, which it
// requires: the key columns are the record key):
//
//	topic, topic-pattern, properties.*  as kafka (a sink: one topic)
//	key.format, value.format       required  as kafka's, insert-only ones (not debezium-json)
//	key.fields-prefix, value.fields-include  as kafka
//	scan.bounded.mode (and its .timestamp-millis, .specific-offsets)  as kafka: strand's, for a
//	                                         bounded read; reading always starts at the earliest offset
//	scan.topic-partition-discovery.interval  as kafka
//	sink.delivery-guarantee, sink.transactional-id-prefix  as kafka
//	sink.parallelism               the input's  the sink's parallelism, behind a hash exchange on
//	                                         the key (the planner's)
//
// A repartition topic (kafka_repartition.go) is a kafka sink and source
// pair that the planner builds, not a table: cluster members shuffle a
// keyed window aggregate's rows through it, one partition per key group,
// in the sink's exactly-once transactions, with the writers' watermarks
// as marks in every partition (see Repartition).
//
// Every source connector (filesystem, datagen, nexmark, kafka,
// upsert-kafka) also takes Flink's watermark alignment options, scan
// options that a table only written may have too (align.go, Alignment):
//
//	scan.watermark.alignment.group            (none)  a name: the sources of the job's tables in
//	                                                  one group keep their watermarks together
//	scan.watermark.alignment.max-drift        (none)  how far a subtask's watermark may be ahead of
//	                                                  the group's least; required with a group, and
//	                                                  a group with it; at least 1 ms
//	scan.watermark.alignment.update-interval  1 s     accepted and checked (positive); strand's
//	                                                  subtasks never see a staler least watermark
//
// # Decisions
//
// Columns. Table.Schema is the connector's columns in declaration order:
// physical ones and METADATA ones (Table.Metadata gives their keys).
// checkColumns refuses what a connector cannot serve: metadata other than
// the filesystem source's (file.path, file.name, file.size,
// file.modification-time, types as in Flink, file.modification-time also
// into TIMESTAMP) and the kafka source's (see Kafka), any metadata column
// in a sink (the planner leaves out
// VIRTUAL ones), PARTITIONED BY outside the filesystem connector. These
// are *ColumnError values. A file reader decodes only the file's columns
// (fileColumns) and adds the others per batch, repeating the split's
// values (split_values.go), so decoding stays per column.
//
// Projection. The planner pushes the columns a query reads into nexmark
// and filesystem sources (Table.Read, Prunable): such a source returns
// only those columns. The file decoders skip the others: a CSV field not
// read is only delimited, a JSON field not read is treated as an unknown
// one (its syntax checked, its value not). So, as in Flink, whose file
// formats take a projection, a bad value in a column the query does not
// read does not make the row malformed; a line with the wrong number of
// fields or broken JSON still is, and json.fail-on-missing-field asks
// only for the fields read.
//
// Partitions. Table.Partitions (PARTITIONED BY) makes a filesystem sink
// route each row to <path>/k1=v1/.../ (filesystem_partition.go): one
// fileWriter per directory, so part-file names, rolling and the two-phase
// commit are per directory; PreCommit hands over every directory's files,
// Recover cleans every directory down to the partition depth. Keys and
// values are escaped as Flink's PartitionPathUtils does; NULL or empty is
// partition.default-name; timestamps are named as Java's LocalDateTime
// and Instant print them. A source requires every visible file to be
// exactly at that depth, in directories of the partition keys in order,
// and parses each value with the column's parser (so a value of the wrong
// type fails the split at Open, whatever ignore-parse-errors says: it is
// the directory, not a row, that is malformed).
//
// Paths. A path is local; file:///x, file://localhost/x and file:/x name
// /x, and other schemes are option errors (AtValue) when the table is
// declared. Validate never touches files; Check, which the planner calls
// before a job starts, requires a source's path to exist and a sink's not
// to be a regular file.
//
// Splits and offsets. A file source's splits are the file, or the visible
// regular files below the directory (recursively; names starting with '.'
// or '_' are hidden, files and directories alike, so in-progress part files
// and _SUCCESS markers are not read), sorted by path. A regular file larger
// than source.split-size is several splits, byte ranges of that size
// (filesystem_split.go): a line belongs to the range it starts in, so each
// line is read once, and one large file keeps every subtask busy. The
// ranges depend on the file's size when the job lists its splits and on
// the option, never on the parallelism; a range is a split like any other,
// so its watermark is its own, computed from its rows alone as if the
// range were a file, lateness is decided against it, and the subtask's
// watermark is the least of its unfinished splits'. A subtask reads its
// splits one after another, in order (exec.InOrder): one not yet started
// counts at its floor, the watermark its first row gives it (read ahead
// when the subtask opens it, lowered below the time of any row before
// it), so a file in time order fires its windows as it is read instead
// of holding them all until its last range ends; it opens a split's file
// when it starts reading it and closes it at its end, so it holds one open
// at a time. Results are therefore
// the same at any parallelism (tests/split_test.go), but a row may be late
// or not depending on the split size, as it depends on how rows are spread
// over files. A file of one range has its path as split ID; ranges are
// path@start-end, the last path@start- and open-ended (lines appended
// later are read by it), so restoring after the file grew past a range
// boundary, or under another split size, finds splits the checkpoint does
// not know and is refused (--allow-non-restored-state drops them) instead
// of reading lines twice. An Offset is the byte offset of the next unread
// line and the number of lines consumed; Open seeks there and numbers
// lines from there, which is how checkpoint recovery resumes; a range's
// zero offset is its start, and an error in a range that does not start
// the file counts the file's lines before it for the message. A datagen split's Offset.Pos is the global number of
// its next row (Open rounds it up to the split's next row, so the zero
// offset is the split's start) and Offset.Line counts the rows the split
// has made.
//
// Lines. A last line without '\n' may be unfinished: it is a line only
// once the file has been quiet for a second (fileReader.settle: size
// unchanged, and modification time a second old or the reader having
// watched that long); meanwhile Next returns the rows before it, or after
// a 50 ms pause none, and the offset stays at the line's start. Input is
// split at '\n' before parsing; a trailing '\r' is dropped,
// so CRLF files work, and a UTF-8 byte-order mark at the start of a file is
// skipped. Blank lines are skipped in both formats. A CSV quoted field
// therefore cannot span lines: the csv sink refuses a string with a line
// break (use json) rather than write a file that cannot be read back. A
// line longer than 64 MiB is a bad row, so a file without line breaks fails
// cleanly.
//
// Values. Non-string values may carry surrounding blanks (Flink trims them)
// and a blank one is NULL; a string field is taken as it is, so an empty
// CSV string field is the empty string, and a NULL string written without
// csv.null-literal reads back as the empty string, as in Flink. The csv
// sink writes the empty string quoted (""), a one-column NULL row as "" and
// quotes a first field starting with '#', so that no row turns into a blank
// or comment line. BOOLEAN is true/false in any case; INT and BIGINT are
// decimal integers, range-checked; FLOAT and DOUBLE accept NaN and
// [-]Infinity and, as Java does, overflow to infinity; DECIMAL is a plain
// decimal number (exponent allowed), rounded half up to the scale; DATE is
// yyyy-MM-dd; TIMESTAMP and TIMESTAMP_LTZ accept yyyy-MM-dd HH:mm:ss[.f]
// with ' ' or 'T', optionally followed by 'Z' or a ±HH:MM offset, which is
// applied (values are UTC), fractions truncated to milliseconds. INTERVAL
// columns are read and written as their integer count (milliseconds,
// months). Invalid UTF-8 in strings becomes U+FFFD. A NULL in a NOT NULL
// column is a bad row. VARCHAR lengths are not enforced on input.
//
// JSON. Fields match columns by name, exactly and then case-insensitively;
// unknown fields are validated and skipped; a repeated field's last value
// wins. Numbers may be JSON numbers or strings; an empty string is NULL for
// a non-string column; a number, boolean, object or array given for a
// STRING column is its JSON text. An integer column refuses a number with a
// fraction or exponent. The sink writes NULL as null, decimals and finite
// floats as numbers, NaN and infinities as strings (as Jackson does), dates
// and timestamps as SQL-format strings; TIMESTAMP_LTZ gets a trailing 'Z'
// in csv and json files, as Flink's SQL timestamp format has it.
//
// Performance. Decoders parse straight from the bufio buffer (1 MiB) into
// plain Go slices per column and build the Arrow arrays once per batch;
// there is no per-row allocation, interface{} or map. Plain slices, unlike
// Arrow builders, let a row that fails halfway be dropped. The JSON decoder
// is a hand-written scanner (about five times encoding/json into a map, see
// the benchmarks).
//
// Bad rows. Without ignore-parse-errors the first malformed row fails the
// read; the rows before it in the same batch are not returned. With it, the
// row is skipped and Metrics.BadRows (when ReadOptions.Metrics is set) grows
// by the number skipped, once per Next. The syntax of a JSON line is
// checked strictly (a fuzz test keeps it in agreement with encoding/json).
//
// File sink. Subtask i writes part-<job>-<i>-<n>.<csv|json>, n counting
// from 0, hidden while written as .part-<job>-<i>-<n>.<ext>.inprogress.
// A file that reaches the rolling size is closed and synced but stays
// hidden; the sync runs in the background, so that the task encoding the
// output (and the operators chained before it) goes on meanwhile, and the
// subtask's last file rolls over as soon as its input ends (exec.EndAware),
// its sync overlapping the other subtasks' work. Close waits for every
// sync, then renames every file of the subtask into place and syncs the
// directory (a pre-commit waits for them too, before it reads the files
// back); Abort removes them. Nothing is created for a subtask that
// writes no rows. The sink needs Env.JobID, so that runs never collide.
// A job holds an OS lock on .strand.lock in the directory while it runs
// (exec.Holder, checkpoint.Lock): a second job writing the directory is
// refused at once, naming the holder's pid. With checkpoints, each pending
// file is read back at pre-commit for the size and CRC32C the checkpoint
// records, and Clean removes a lineage's hidden or all of its files.
//
// Datagen. Each value is splitmix64 of a key (derived from the seed and
// the lower-cased column name) plus the row number, so rows are
// reproducible, independent of the split count, and resumable from any
// row; adding a column changes no other column's values. A source is
// bounded if number-of-rows or any sequence's end is set (the least of
// them wins); a sequence without an end runs forever (an INT one wraps). A
// FLOAT or DOUBLE sequence counts in whole numbers. Rate limiting follows
// a schedule that starts when a reader is opened (row j of a split is due
// at j / (rows-per-second / splits) seconds); Next sleeps at most 50 ms and
// then returns the rows that are due, possibly none.
//
// Nexmark, Flink's shape. Without 'event-type' a nexmark table has the
// columns of Flink's ddl_gen.sql (nexmark_flink.go): event_type INT (0
// person, 1 auction, 2 bid) and person, auction and bid ROWs of the flat
// tables' fields (any subset and order of columns and fields), one row
// per event, the ROWs of the other kinds NULL. Event n is the same event
// as in the flat tables; its values are made by the same code, for the
// batch's events of each kind, and spread out over the batch's rows. The
// planner narrows the ROWs to the fields a query reads (Table.Read and
// the narrowed ROW types in Table.Schema) and passes the filter's
// event_type = k (Table.Equal): the source then makes only kind k's
// events, with the splits and offsets of the flat table of that kind, so
// Flink's views cost about what the flat tables do. Flink's options that
// would change what strand generates (a second rate, throttling,
// keep-alive, stop-at, extended bids) are refused at the option.
//
// Nested columns in formats (json_nested.go, batch_nested.go): json reads
// a ROW from an object, an ARRAY from an array and a MAP from an object,
// and writes them back; a nested value is parsed as deep as its column's
// type, which the DDL bounds (the first pass validates the whole line
// without recursion). csv, raw, datagen and partition columns refuse
// nested columns at the column (columns_nested.go).
//
// Nexmark. The generator follows Flink's nexmark repository
// (NexmarkGenerator and the Person, Auction, Bid and Price generators) with
// one difference: where Flink draws from one java.util.Random per source,
// every value here is a pure function of (seed, event number n, field):
// splitmix64 of a key (from the seed and "<type>.<field>") plus n, whose
// bits are split among a field's choices by chained multiply-shift
// reduction. So runs are identical at any parallelism, any splits, any
// batch size and after resuming, and a table that declares fewer columns
// gets the same values in the ones it declares.
//
//   - Kinds: event n is a person if n mod T < person.proportion, else an
//     auction if below person + auction proportions, else a bid (1:3:46,
//     T = 50, by default). Epoch e = n / T, offset o = n mod T.
//   - Ids: person id = e·person.proportion + o + 1000; auction id =
//     e·auction.proportion + (o - person.proportion) + 1000; category =
//     10 + uniform{0..4}.
//   - Bid.auction: with probability 1 - 1/bid.hot-ratio.auctions the hot
//     auction, (last auction / 100)·100 in base-0 ids; otherwise uniform
//     over the last 100 auctions made plus the next 10 (Flink's
//     nextBase0AuctionId). Bid.bidder: with probability
//     1 - 1/bid.hot-ratio.bidders (last person / 100)·100 + 1, otherwise
//     uniform over the last 1000 people plus the next 10. Auction.seller
//     likewise with auction.hot-ratio.sellers and hot id (last person /
//     100)·100. Flink's BidGenerator adds FIRST_PERSON_ID to the bidder
//     twice in the version with channels; strand adds it once, so bidders
//     are person ids.
//   - Prices: round(10^(6u)·100) for u uniform in [0, 1), log-uniform over
//     100..1e8; computed as 2^(u·6·log2 10) from a table (built with
//     math/big) and a Taylor series, each operation rounded separately, so
//     the same on every platform and equal to Math.pow's result on the
//     200000 values the tests compare. Auction.initialBid is a price,
//     reserve = initialBid + another price, expires = dateTime + 1 ms + a
//     draw below twice the event time of 100 auctions' worth of events
//     (Flink's nextAuctionLengthMs: about 167 ms on average at 10000
//     events/s).
//   - Bid.channel: with probability 1/2 one of Google, Facebook, Baidu,
//     Apple, else channel-<i>, i uniform in 0..9999. Each channel has one
//     fixed URL, https://www.nexmark.com/<a>/<b>/<c>/item.htm?query=1, whose
//     parts are Flink's nextString(5, '_') (3 or 4 characters of a-z and
//     _), and 9 in 10 of the channel-<i> URLs (fixed per channel, as Flink
//     caches them) end in &channel_id=<Math.abs(Integer.reverse(i))>
//     (-2147483648 for channel-1, whose reverse is MIN_VALUE, as in Java).
//   - Person: name from 11 first × 9 last names, emailAddress
//     nextString(7)@nextString(5).com, creditCard four groups of four
//     digits, city (10) and state (6) from Flink's lists. Auction itemName
//     and description are nextString(20) and nextString(100): 3 to 19 or
//     99 characters, a space with probability 1/13, else a-z, trimmed.
//   - extra pads the event to its average size counted as Flink counts it
//     (8 bytes per number, the strings' bytes, not channel or url):
//     Flink's nextExtra, a length in [d - δ, d + δ) with d the average
//     minus the rest and δ = round(d/5), so each event is within ±20% of
//     the average. Its letters are a window of a 64 KiB pool of random
//     letters made from the seed, as TPC-H's dbgen takes comments from a
//     text pool; only its length matters to the queries.
//   - Time: dateTime = base-time + floor(n·1000 / first-event.rate) ms,
//     exactly in integers (Flink: baseTime + (long)(n·1e6/rate)/1000), so
//     each split's events are in time order. Generation is as fast as the
//     reader is called, or as events-per-second lets it: event n of a
//     split is due (n - n0) / events-per-second seconds after Open (n0
//     its first event then), the numbers counting every kind, so that a
//     bid table and a person table of one sequence keep pace in event
//     time; Next sleeps at most 50 ms and returns the events that are
//     due, possibly none. The rate only spaces event times, and the
//     throttle changes no event.
//   - Splits and offsets: split s makes epochs s, s+splits, ..., so every
//     split has all three types in the same proportions and its event
//     time advances with the others'. A reader steps straight from one of
//     its events of the table's type to the next: the other types cost
//     nothing. Offset.Pos is the number of the split's next event of the
//     table's type (Open rounds a position up to one, so the zero offset
//     is the split's start) and Offset.Line counts the rows returned.
//   - Columns match Flink's DDL names case-insensitively (bid: auction,
//     bidder, price, channel, url, dateTime, extra; auction: id, itemName,
//     description, initialBid, reserve, dateTime, expires, seller,
//     category, extra; person: id, name, emailAddress, creditCard, city,
//     state, dateTime, extra) with types BIGINT, VARCHAR/STRING and
//     TIMESTAMP(3) or TIMESTAMP_LTZ(3); any subset, in any order; an
//     unknown name or wrong type is an option error on 'event-type'. Only
//     declared columns are made.
//
// Nexmark performance. Numbers, bid channels, urls and extras are written
// straight into the Arrow buffers (strings after a pass that sizes them);
// nothing is allocated per event. BenchmarkNexmarkBids (all 7 bid columns,
// batches of 4096, one goroutine, events per CPU-second of the whole
// process, garbage collector included) on the 2-core development machine,
// while other jobs kept its load average near 10:
//
//	allocator that reuses released buffers (BenchmarkNexmarkBidsReused)  about 10M bids/CPU-s
//	memory.DefaultAllocator (as exec.Run uses), GOGC=400                 6.1M-7.8M bids/CPU-s
//	memory.DefaultAllocator, GOGC=100                                    3.1M-3.4M bids/CPU-s
//
// The first is the generator's own cost (about 100 ns per bid, a third of
// it copying strings). The others add Go's allocation of about 800 KB per
// batch: zeroing, page faults, and with the default GOGC a collection of
// the benchmark's 3 MB heap every six batches, whose stop-the-world pauses
// stretch on a loaded machine. How the engine allocates batches (a pool
// that reuses released buffers, or a GC target sized for streaming) is
// decided outside this package.
//
// Kafka. A source's splits are the partitions of its topics, "<topic>-<p>",
// sorted by topic and partition, and assigned to subtasks by strand as any
// splits are (not by consumer-group rebalancing), so lateness is decided
// per partition and results are the same at any parallelism. The topics,
// partitions and every partition's start and stop offsets are resolved once
// per run, when the job starts (so a bounded latest-offset read stops where
// the topic ended then). With scan.topic-partition-discovery.interval the
// source is an exec.Discovering: Splits, called again by each subtask
// every interval, lists the topics again and appends the partitions it had
// not, sorted, as new splits (exec.Split.New) read from the earliest
// offset found then; a split unknown to the checkpoint of a restore is new
// too (exec's source task marks it), so it is read from its start, as
// Flink's enumerator treats partitions its state lacks. An Offset
// is the next Kafka offset plus one (0: not positioned, the startup mode
// decides) and the records consumed; a restore resumes exactly there. All
// readers of one subtask share one franz-go client, one fetch loop: a
// reader takes the records fetched for it, and only when no partition of
// the subtask has any does it wait, at most 50 ms, so an idle partition
// never stalls the others. Control records (transaction markers) are
// stepped over. A record without a value (a tombstone) is no row in the
// csv and json formats, a NULL in raw (as Flink's raw format reads it),
// and the deletion of its key in upsert-kafka: its key columns decoded
// from the record key (aside, and copied into the value's columns, with
// value.fields-include ALL), its other columns NULL, kind -D; a tombstone
// without a key deletes nothing. A blank value is no row; a debezium-json
// value is its message's rows, with their kinds. A malformed one fails the job naming topic, partition and
// offset, unless the format ignores parse errors. With value.fields-include
// ALL the key fields are read from the value (Flink's result, where the
// value's win), so the key is not decoded; with EXCEPT_KEY a record without
// a key has NULL key fields. group-offsets is Flink's default startup mode;
// without properties.group.id strand starts at earliest-offset instead. A
// partition that specific-offsets leaves out starts at the group's offset,
// or the earliest. isolation.level defaults to read_committed (the Kafka
// client's default is read_uncommitted): reading the aborted rows of a
// transactional writer is never what a SQL user wants. Metadata: topic,
// partition, offset, timestamp (TIMESTAMP_LTZ(3)), timestamp-type,
// leader-epoch as in Flink; headers is a STRING holding a JSON object of
// the headers as text, and key the key as text (no MAP or BYTES type yet).
// With properties.group.id, the positions of each completed checkpoint are
// committed to the group (exec.Notified), in the background and for
// monitoring only, as Flink does: restores use the checkpoint's, and the
// final checkpoint's commit may be cut short by the process exiting.
//
// Kafka sink. Each row is one record: the key.fields columns encoded with
// key.format (none: a null key), the value columns with the format, each
// without the line break a file would have. at-least-once flushes at every
// barrier, so that a completed checkpoint has every earlier row
// acknowledged; none does not wait. exactly-once writes the rows of subtask
// s after barrier k in a transaction of transactional id <prefix>-<s>-<k>,
// begun with the first such row; at barrier n the writer flushes it and
// hands it over open, with its producer id and epoch
// (checkpoint.PendingTxn), and starts the next one after n. When checkpoint
// n completes, the coordinator commits it with an EndTxn as that producer;
// a restore from n does the same (a commit already done is a successful
// retry), then aborts every other open transaction of the prefix
// (ListTransactions, then InitProducerID for each, which fences its
// producer and aborts it): the replay after n writes their rows again. So a
// read_committed reader sees each row once across crashes. A job that ends
// commits its last transaction in Close, so without checkpoints a run is one
// transaction. A Close whose flush or commit fails, and an Abort, fence the
// writer's open transaction the same way, so that a failed run leaves no
// transaction open to hold back read_committed readers. A transaction must
// be committed before properties.transaction.timeout.ms, or the broker
// aborts it and its rows are lost, as in Flink. Transactional ids are used
// again (every run's first transaction is <prefix>-<s>-0): a transaction is
// known by its id, producer and epoch, so that a sink that commits an
// earlier use of an id does not take a later one for it. A fresh start
// after a finished run that ended does not commit that run's last
// transactions again (exec.Checkpointing.Settled): once a fresh start that
// died has used their ids again, the commit would be refused as fenced. Two jobs must not share a prefix. Rows a discarded
// lineage committed cannot be taken back (Clean only aborts). Metadata
// columns declared without VIRTUAL write the record's headers (a JSON
// object of strings, as the source shows them; anything else fails the
// job naming the column) and timestamp; the sink writes no other metadata
// (checkColumns refuses it). The raw format writes NULL as a tombstone,
// so that it reads back as NULL; an empty string is an empty value.
// upsert-kafka writes +I and +U as records of their key and -U and -D as
// tombstones (a nil value), as Flink's upsert sink does; a debezium-json
// value carries each row's kind.
//
// Changelogs. SourceChangelog and SinkChangelog tell the planner what a
// table reads and writes (changelog.go): insertions, a changelog of rows
// with their kinds (debezium-json; print and blackhole take any), or
// upserts by the PRIMARY KEY (upsert-kafka, whose key Table.PrimaryKey
// carries). A decoder commits a row with its kind (batch.commitAs); a
// batch holds the kinds only once a row is not an insertion, so the
// insert-only formats pay nothing, and its record carries them
// (exec.WithKinds) through split values and the Kafka reader's parts. A
// debezium "u" message is two rows: with a decoded key (EXCEPT_KEY) or
// metadata, the record's key and metadata are repeated for the second.
//
// Print. FormatRow renders rows as Flink's Row.toString: +I[1, null, abc],
// with NULL as null (Flink's print connector prints null; <NULL> is only
// the SQL client's rendering), booleans true/false, timestamps as
// yyyy-MM-dd HH:mm:ss.SSS (Flink would print a Java LocalDateTime,
// 2024-01-01T10:00), TIMESTAMP_LTZ as UTC wall-clock time, floats as Java
// prints them, intervals as their integer count. The kind in front is the
// row's (exec.KindOf): +I, -U, +U or -D, so an updating result prints as
// Flink's changelog does. The print sink renders a batch and writes it
// with one Write call under a package-wide mutex, so lines of concurrent
// subtasks never interleave. Unlike Flink it never prefixes the subtask
// number: output must not depend on the parallelism.
package connector
