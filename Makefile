# pgspec: PostgreSQL protocol docs → versioned JSON spec → Go codec.
#
#   make generate   regenerate codec/ and the matrix from the committed spec (no network, no corpus)
#   make check      what CI runs: vet, gofmt, the whole test suite, and proof that the
#                   committed spec and codec are what the tools produce now
#   make spec       re-extract spec/pgNN.json from the corpus in $(DOCS)

DOCS ?= ../shared/docs
GO ?= go
export PGSPEC_DOCS := $(abspath $(DOCS))

.PHONY: all generate spec test vet fmt-check tidy-check check check-spec check-generated

all: check

generate:
	$(GO) generate ./...

spec:
	$(GO) run ./cmd/pgspec extract --docs $(DOCS) --spec spec --out spec

# -timeout: go test's 10 minutes per package are too few for cmd/pgspec
# (whose new-major drill runs the module's tests again, in a copy) on a
# loaded machine. The codec's tests run once more with the purego tag:
# the pure-Go putStr that architectures other than amd64 build, in place
# of putstr_amd64_gen.s.
test:
	$(GO) test -count=1 -timeout 30m ./...
	$(GO) test -count=1 -tags purego ./codec/

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# go.mod and go.sum must be what go mod tidy makes them.
tidy-check:
	$(GO) mod tidy -diff

# The committed spec must equal a fresh extraction (when the corpus is here).
check-spec:
	@if [ -d "$(DOCS)" ]; then \
		tmp=$$(mktemp -d) && \
		$(GO) run ./cmd/pgspec extract --docs $(DOCS) --spec spec --out $$tmp >/dev/null && \
		for f in spec/pg*.json; do cmp -s $$f $$tmp/$$(basename $$f) || { echo "$$f is stale: run make spec"; rm -rf $$tmp; exit 1; }; done; \
		[ $$(ls $$tmp/pg*.json | wc -l) -eq $$(ls spec/pg*.json | wc -l) ] || { echo "spec/ lacks or has extra pgNN.json: run make spec"; exit 1; }; \
		rm -rf $$tmp; echo "spec/ is current"; \
	else echo "no corpus at $(DOCS): spec freshness not checked"; fi

# The committed generated files must equal what the generator writes now.
check-generated:
	$(GO) generate ./...
	@git diff --exit-code --stat -- codec spec || { echo "generated files are stale: run make generate and commit"; exit 1; }
	@untracked=$$(git ls-files --others --exclude-standard -- codec spec); if [ -n "$$untracked" ]; then echo "untracked generated files: $$untracked"; exit 1; fi

check: vet fmt-check tidy-check check-spec check-generated test

# Benchmarks side by side with pgproto3 and pglogrepl (not in CI): the raw
# run goes to $(BENCH_OUT), then codec/testdata/benchtable.sh prints the
# benchstat tables and the ratios the README shows.
BENCH_OUT ?= /tmp/pgspec-bench.txt
BENCH_COUNT ?= 10
BENCH_TIME ?= 1s

.PHONY: bench bench-cdc bench-proxy bench-server profile fuzz

bench:
	$(GO) test -run '^$$' -bench . -benchmem -count $(BENCH_COUNT) -benchtime $(BENCH_TIME) ./codec/ > $(BENCH_OUT) || { cat $(BENCH_OUT); exit 1; }
	GO=$(GO) sh codec/testdata/benchtable.sh $(BENCH_OUT)

# codec/cdc against pglogrepl + pgtype on the recorded 15 stream, and a 1 GB
# streamed transaction through a 16 MB limit (it writes 1 GB to TMPDIR; not in CI).
BENCH_CDC_OUT ?= /tmp/pgspec-bench-cdc.txt
bench-cdc:
	$(GO) test -run '^$$' -bench Consume -benchmem -cpu 1 -count $(BENCH_COUNT) ./codec/cdc/ > $(BENCH_CDC_OUT) || { cat $(BENCH_CDC_OUT); exit 1; }
	$(GO) test -run '^$$' -bench StreamedGB -benchmem -benchtime 1x ./codec/cdc/ | tee -a $(BENCH_CDC_OUT)
	$(GO) run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da -col '/impl@(pglogrepl pgspec)' $(BENCH_CDC_OUT)

# What the conversation trackers cost on the committed captures (issue 22),
# beside decoding with the Params given (bare, an oracle) and with the state
# kept by hand (hand): wall time, interleaved rounds summarised by benchstat,
# and callgrind's instructions a pass, which a busy machine does not move
# (needs valgrind). KINDS picks captures: make bench-tracker KINDS=sessions
.PHONY: bench-tracker bench-tracker-instructions

bench-tracker:
	GO=$(GO) sh internal/trace/testdata/trackercost.sh wall

bench-tracker-instructions:
	GO=$(GO) sh internal/trace/testdata/trackercost.sh instructions

# CPU and memory profiles of the benchmarks PROFILE matches (a -bench
# pattern), kept in $(PROFILE_DIR) for `go tool pprof` and summarised here:
# where a case spends its time, and that it allocates nothing (not in CI).
PROFILE ?= Encode/Query/impl=pgspec
PROFILE_DIR ?= /tmp/pgspec-profile

profile:
	mkdir -p $(PROFILE_DIR)
	$(GO) test -run '^$$' -bench '$(PROFILE)' -benchmem -benchtime 2s -o $(PROFILE_DIR)/codec.test \
		-cpuprofile $(PROFILE_DIR)/cpu.prof -memprofile $(PROFILE_DIR)/mem.prof ./codec/
	$(GO) tool pprof -top -nodecount 12 $(PROFILE_DIR)/codec.test $(PROFILE_DIR)/cpu.prof
	$(GO) tool pprof -top -nodecount 5 -sample_index alloc_space $(PROFILE_DIR)/codec.test $(PROFILE_DIR)/mem.prof

# Every fuzz target of every package, one after another, FUZZTIME each (not in CI).
# FUZZMINIMIZE bounds how long a worker minimises each new interesting input:
# Go's default, 60s, is spent whole on FuzzDecodeCapture's inputs of a few KiB
# (every exec builds gopacket's reassembler, ~3 MB and milliseconds, and the
# minimiser's execs are not counted), which read as fuzzing stalled after a
# few executions.
FUZZTIME ?= 10m
FUZZMINIMIZE ?= 2s
# go test's own -timeout (10m by default) must outlast FUZZTIME.
FUZZTIMEOUT ?= 30m

fuzz:
	@for pkg in $$($(GO) list ./...); do \
		dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
		for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$t ($$pkg, $(FUZZTIME))"; \
			before=$$(ls $$dir/testdata/fuzz/$$t 2>/dev/null | wc -l); \
			$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) \
				-timeout $(FUZZTIMEOUT) $$pkg 2>&1 | tee /tmp/pgspec-fuzz.log; \
			after=$$(ls $$dir/testdata/fuzz/$$t 2>/dev/null | wc -l); \
			if [ "$$after" != "$$before" ]; then echo "$$t: new failing input in $$dir/testdata/fuzz/$$t"; exit 1; fi; \
			if ! tail -3 /tmp/pgspec-fuzz.log | grep -q '^ok\|^PASS'; then \
				tail -4 /tmp/pgspec-fuzz.log | grep -q 'context deadline exceeded' || exit 1; \
				echo "$$t: ran $(FUZZTIME) with no failing input; Go 1.26's coordinator reported its deadline race (go.dev/issue/75804)"; \
			fi; \
		done; \
	done

# pgtrace in front of a throwaway PostgreSQL 15 (not in CI): pgbench -S and
# -S -M prepared with 4 clients through a plain io.Copy forwarder and through
# pgtrace with its lines to /dev/null, plain and with TLS on both sides, the
# proxy alone on one core; PGTRACE_BENCH_ROUNDS (21) rounds of the two back to
# back, PGTRACE_BENCH_SECONDS (3) each, then the median round's tps ratio, CPU
# per transaction and pgtrace's RSS with 500 idle sessions (about 10 minutes).
bench-proxy:
	$(GO) test -run '^$$' -bench '^BenchmarkProxyPgbench$$' -benchtime 1x ./internal/trace/

bench-server:
	$(GO) test -run '^$$' -bench '^BenchmarkServers$$' -benchtime 1x ./cmd/exampleserver/

# Real traffic of PostgreSQL 13, 15, 17, 18 and 19, each server in a
# debootstrap chroot under $(CHROOTS), recorded with tcpdump and dumpcap into
# testdata/captures/ (not CI: needs root and Debian's mirror; CI decodes the
# committed captures). CAPTURE_MAJORS picks some, CAPTURE_KINDS some files:
# make captures CAPTURE_MAJORS=17 CAPTURE_KINDS="logical backup"
CHROOTS ?= /var/tmp/pgspec-chroots
CAPTURE_MAJORS ?=
CAPTURE_KINDS ?=

.PHONY: captures

captures:
	CHROOTS=$(CHROOTS) CAPTURE_KINDS="$(CAPTURE_KINDS)" bash testdata/captures/record.sh $(CAPTURE_MAJORS)

# Mutation testing (not in CI; CI runs one sample, internal/mutate's
# TestSampleIsKilled): every gate, pgoutput version, presence condition,
# choice, count, protocol-bounded length, NULL length, layout-by-major and
# major the generator emits is removed or inverted, one at a time; the codec
# is regenerated from the mutated model in a copy of the module and its
# tests run there. Each surviving mutant is a condition no test pins.
# MUTATE passes flags: MUTATE='-run logical-update' or MUTATE='-every 10'.
MUTATE ?=

.PHONY: mutate

mutate:
	$(GO) run ./internal/mutate $(MUTATE)
