// Package oracle checks every Nexmark query of queries/nexmark against an
// independent reference: DuckDB, running its own SQL formulation of each
// query over the same events. It is a module of its own, because DuckDB
// needs cgo, which the strand binary must not; `go test ./...` of the main
// module does not enter it, `make test-oracle` runs it.
//
// TestNexmark builds the strand binary (or takes STRAND_BIN), and:
//
//  1. Dumps the events of strand's Nexmark generator to CSV files, with a
//     strand query that writes person, auction and bid to the filesystem
//     sink, and loads them into DuckDB. The generator is shared; nothing
//     else is: the windows, joins, Top-Ns and aggregates of the oracle
//     are DuckDB's SQL, windows written out as arithmetic on epoch
//     milliseconds, sessions with LAG and a running sum, Top-N with
//     ROW_NUMBER.
//  2. Runs each query file unchanged except for its sink, whose blackhole
//     becomes the print connector (q10 keeps its partitioned files), at
//     parallelism 1 with 1024-row batches and 4 with 256-row ones (why
//     not the default 4096: see runs), applies the printed changelog (+I and +U add a
//     row, -U and -D take one back, and taking back a row that is not
//     there is an error), and compares the final rows with DuckDB's as
//     multisets, every value rendered as strand prints it.
//
// The events. The generator's event times are in order within each split
// (each split's events are every splits-th epoch, whose times only grow),
// and every table's watermark is its time minus 4 seconds, so no row is
// ever late: the oracle needs no watermarks, and the test checks that
// every run reports "late rows dropped 0". The rate is 10 events per
// second of event time, so that each event has a millisecond of its own
// (no ties on dateTime: a deduplication's or Top-1's choice is never
// left to arrival order), 10-second windows hold about a hundred events,
// and 200000 events span 5 h 33 min from 18:30, crossing midnight (q15-q17
// see two days) and the hours of each of q14's cases.
//
// Processing time. q12's windows depend on when rows reach the window
// operator, so it is checked by invariants instead: its windows are 10
// seconds long and aligned, each (bidder, window) appears once, and each
// bidder's counts add up to its number of bids.
//
// Ties. A Top-N's rows that tie on its ORDER BY are ordered by their other
// columns ascending in strand (README, "Deduplication and Top-N"); Flink
// leaves them to arrival order. The oracle's q19 spells strand's rule out,
// so the comparison is exact.
package oracle
