# strand: the two commands are `make demo` and `make test`.
GO ?= go
BIN := bin/strand

.PHONY: build demo test test-oracle test-poison test-ui soak fuzz clean bench bench-files

build:
	$(GO) build -o $(BIN) ./cmd/strand

# Runs a tumbling-window aggregate over the embedded datagen source and
# prints each window's rows as it fires.
demo: build
	./$(BIN) run queries/demo.sql --parallelism 2

# vet, then every test with the race detector, then the packages whose
# single-goroutine tests scale down under it (raceEnabled, scaled or
# modelSeeds in their race_test.go) once more without it, at full size, and
# the end-to-end property tests of tests/ that run one case in a few under
# it (raceRuns) with every case.
test:
	$(GO) vet ./...
	$(GO) test -race -timeout 14m ./...
	$(GO) test -timeout 5m ./memseg ./parser ./window ./state
	$(GO) test -timeout 5m -run '$(NORACE_TESTS)' ./tests

# The tests of tests/ that call raceRuns, which checks that they are here.
NORACE_TESTS := ^(TestWindowJoinResultsAreExact|TestGroupingSetsResultsAreExact|TestSessionWindowResultsAreExact|TestSlidingWindowResultsAreExact|TestIntKeyedWindowResultsAreExact|TestIntervalJoinResultsAreExact)$$

# Every Nexmark query of queries/nexmark at parallelism 1 and 4 against
# DuckDB's formulation of it over the same events (tests/oracle, a module
# of its own, so that DuckDB's cgo is not a dependency of strand). Not
# part of test: cold, it downloads and links DuckDB's static library and
# builds strand without -race, minutes on two cores that test's 15 have
# no room for; .ci/run runs it after test.
test-oracle: build
	cd tests/oracle && STRAND_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 15m -v ./...

# The SQL tests and the oracle with the allocator's poison debug mode:
# memory taken unzeroed (exec.AllocNoZero) comes filled with garbage, so
# that a writer leaving bytes unwritten that a reader relies on fails.
test-poison: build
	STRAND_ALLOC_POISON=1 $(GO) test -count=1 -timeout 10m -run TestSQL ./tests
	cd tests/oracle && STRAND_ALLOC_POISON=1 STRAND_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 15m ./...

# The web dashboard in headless Chromium, driven with chromedp against the
# real binary running a job (tests/ui, a module of its own, so chromedp is
# not a dependency of strand). Installs Debian's chromium if it is missing,
# which needs root (as in CI). Screenshots of each page: tests/ui/artifacts.
test-ui: build
	command -v chromium >/dev/null || { apt-get update && apt-get install -y --no-install-recommends chromium; }
	cd tests/ui && STRAND_BIN=$(CURDIR)/$(BIN) STRAND_UI_ARTIFACTS=$(CURDIR)/tests/ui/artifacts $(GO) test -count=1 -timeout 5m -v ./...

# The crash harness at length: 40 kills per parallelism over a longer run,
# and a TTL'd join's state held flat for 10 minutes (TestJoinStateTTLFlat).
# Then every Nexmark query of test-oracle with exactly-once checkpoints
# (every 10 s at parallelism 1, 2 s at 4), one SIGKILL after a checkpoint
# and a recovery, against DuckDB (tests/oracle's TestSoak, about 30 min).
soak: build
	STRAND_SOAK=1 $(GO) test -count=1 -timeout 45m -run 'TestCrashRecoveryExactlyOnce|TestSpillCrashRecovery|TestREPLMemoryFlat|TestJoinStateTTLFlat' -v ./tests
	cd tests/oracle && STRAND_SOAK=1 STRAND_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 60m -run TestSoak -v ./...

# A longer fuzzing pass over the parser and the decoders.
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./parser
	$(GO) test -run '^$$' -fuzz FuzzCSV -fuzztime 60s ./exec/connector
	$(GO) test -run '^$$' -fuzz FuzzJSON -fuzztime 60s ./exec/connector
	$(GO) test -run '^$$' -fuzz FuzzDebezium -fuzztime 60s ./exec/connector
	$(GO) test -run '^$$' -fuzz FuzzParseExpr -fuzztime 60s ./parser
	$(GO) test -run '^$$' -fuzz FuzzKeyOrder -fuzztime 60s ./memseg
	$(GO) test -run '^$$' -fuzz FuzzLoad -fuzztime 60s ./window
	$(GO) test -run '^$$' -fuzz FuzzReadExport -fuzztime 60s ./state

# The Nexmark queries with their hand-written baselines: events per
# CPU-second, peak RSS, and the ratio to the baseline (docs/performance.md).
bench: build
	./$(BIN) bench nexmark --query all --baseline

# Reading files against DuckDB (bench/duckdb, a module of its own because
# DuckDB needs cgo): CSV and JSON lines, rows per CPU-second of each whole
# process, median of 3 alternated runs, results checked equal.
bench-files: build
	cd bench/duckdb && $(GO) run . -strand ../../$(BIN) -rows 1000000 -runs 3

clean:
	rm -rf bin
