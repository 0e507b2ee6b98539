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
//	path                           required  a file or a directory
//	format                         required  csv | json
//	sink.rolling-policy.file-size  128MB     roll to a new part file once this size is reached
//	                                         (Flink memory size: 1kb, 64 MB, 2g; units are powers of 1024)
//
// format csv (Flink's csv format; no header line):
//
//	csv.field-delimiter            ,         one ASCII character; '\t' may be spelled as the two characters \t
//	csv.quote-character            "         one ASCII character, not the delimiter
//	csv.disable-quote-character    false     no quoting at all
//	csv.allow-comments             false     skip lines starting with #
//	csv.ignore-parse-errors        false     skip (and count) malformed rows instead of failing
//	csv.null-literal               (none)    a field equal to it, after unquoting, is NULL, for every type;
//	                                         the sink writes NULL as it
//
// format json (Flink's json format; one object per line):
//
//	json.fail-on-missing-field     false     a missing field is an error instead of NULL
//	json.ignore-parse-errors       false     skip (and count) malformed rows; not with the one above
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
// print (sink):
//
//	print-identifier               (none)    prefix each line with "<identifier>> "
//
// blackhole (sink): no options; discards everything.
//
// # Decisions
//
// Splits and offsets. A file source's splits are the file, or the visible
// regular files below the directory (recursively; names starting with '.'
// or '_' are hidden, files and directories alike, so in-progress part files
// and _SUCCESS markers are not read), sorted by path. An Offset is the byte
// offset of the next unread line and the number of lines consumed; Open
// seeks there and numbers lines from there, which is how checkpoint
// recovery resumes. A datagen split's Offset.Pos is the global number of
// its next row (Open rounds it up to the split's next row, so the zero
// offset is the split's start) and Offset.Line counts the rows the split
// has made.
//
// Lines. Input is split at '\n' before parsing; a trailing '\r' is dropped,
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
// hidden; Close renames every file of the subtask into place and syncs the
// directory; Abort removes them. Nothing is created for a subtask that
// writes no rows. The sink needs Env.JobID, so that runs never collide.
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
// Print. FormatRow renders rows as Flink's Row.toString: +I[1, null, abc],
// with NULL as null (Flink's print connector prints null; <NULL> is only
// the SQL client's rendering), booleans true/false, timestamps as
// yyyy-MM-dd HH:mm:ss.SSS (Flink would print a Java LocalDateTime,
// 2024-01-01T10:00), TIMESTAMP_LTZ as UTC wall-clock time, floats as Java
// prints them, intervals as their integer count. Every row is +I until
// batches carry a row kind. The print sink renders a batch and writes it
// with one Write call under a package-wide mutex, so lines of concurrent
// subtasks never interleave. Unlike Flink it never prefixes the subtask
// number: output must not depend on the parallelism.
package connector
