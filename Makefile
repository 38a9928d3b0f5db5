GO ?= go
BIN := bin/cbcsim
SCENARIO ?= scenarios/fail_fast.toml
FUZZTIME ?= 60s
FUZZSEEDS ?= 20000
HOSTILE_N ?= 5500

.PHONY: build install chromium doccheck test vet bench bench-real bench-compare run fuzz mutants hostile clean cabi cabi-test cabi-bench stress

build:
	$(GO) build -o $(BIN) ./cmd/cbcsim

# cbcsim on PATH: go install puts it in $(go env GOBIN), or
# $(go env GOPATH)/bin when GOBIN is unset; the commands the tool prints
# (reproduce, replay) then work as printed (README.md).
install:
	$(GO) install ./cmd/cbcsim

# Debian's Chromium, for the test that renders the HTML reports in a real
# browser (trace/htmlreport/browser_test.go, docs/report.md); it skips
# without one. Needs root (apt-get).
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
		{ apt-get update && apt-get install -y chromium; }

# Every command README.md and docs/*.md show, run as written in a copy of
# the repository with bin/cbcsim built and on PATH, and the outputs they
# show compared (internal/doccheck, docs/contributing.md#runnable-docs).
# DOCS=REGEXP checks only the matching documents (DOCS=workflow).
doccheck:
	$(GO) test -count=1 -timeout 60m -run TestDocs ./internal/doccheck -doccheck -doccheck.files '$(DOCS)' -v

# The C ABI: bin/libjanus_sched.so, for C programs that include
# cabi/janus_sched.h (docs/c-abi.md).
cabi:
	$(GO) build -buildmode=c-shared -o bin/libjanus_sched.so ./cabi
	@rm -f bin/libjanus_sched.h # cgo's header; cabi/janus_sched.h is the contract

# The C tests: each cabi/testdata/test_*.c compiled with cc against the
# library and run (the race detector does not apply to C); then again
# against the library built with the portable ucontext switch that other
# architectures use, so that it is tested too.
cabi-test: build cabi
	CC="$(CC)" ./cabi/testdata/run.sh
	CGO_CFLAGS="-O2 -DJANUS_SWITCH_UCONTEXT" $(GO) build -buildmode=c-shared -o bin/ucontext/libjanus_sched.so ./cabi
	CC="$(CC)" LIBDIR=bin/ucontext ./cabi/testdata/run.sh

# The costs of the C path (docs/performance.md).
cabi-bench: cabi
	$(CC) -O2 -o bin/cabi_cost cabi/testdata/cost.c -Icabi -Lbin -ljanus_sched -pthread
	LD_LIBRARY_PATH=bin ./bin/cabi_cost

# staticcheck comes through the module proxy at a pinned version (go run
# caches the build), so it needs no install step and is not a dependency
# of the module. Each exception is a //lint:ignore directive with its reason.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

vet:
	$(GO) vet ./...
	GOARCH=386 $(GO) vet ./... # 32-bit int: constants that overflow it
	CGO_ENABLED=0 $(GO) build ./... # no C toolchain: the C ABI is left out
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod or go.sum is not tidy; run go mod tidy:"; $(GO) mod tidy -diff; exit 1; }
	$(GO) run $(STATICCHECK) ./...

# Every test. The race detector is on for every package: the core is
# concurrent, and the simulator runs that same core. CBCSIM_TEST_FULL=1:
# the full counts that plain `go test ./...` bounds (testkit.Full,
# docs/contributing.md#the-test-suite).
test: vet
	CBCSIM_TEST_FULL=1 $(GO) test -race -count=1 -timeout 20m ./...
	$(GO) test -tags mutants -count=1 -run 'TestMutants|TestDeepMutants' ./sim/mutants
	$(GO) test -tags mutants -count=1 -run TestMutantsCorpus ./cmd/cbcsim
	$(MAKE) cabi-test
	$(MAKE) stress STRESS_ROUNDS=1 STRESS_PKGS=./sched CBCSIM_TEST_FULL=1
	$(MAKE) doccheck

# The race suites of the concurrent packages under load: STRESS_ROUNDS
# passes (default 3) of sched, simtest, sim and cabi under -race, each
# beside two busy loops that keep both cores taken, and no failure
# allowed. No test may depend on the wall clock or the OS scheduler to
# pass (docs/contributing.md); this is how that is checked. make test
# runs one bounded pass of sched's (STRESS_ROUNDS=1 STRESS_PKGS=./sched).
STRESS_ROUNDS ?= 3
STRESS_PKGS ?= ./sched ./simtest ./sim ./cabi
stress:
	bash internal/testkit/stress.sh $(STRESS_ROUNDS) $(STRESS_PKGS)

# Each deliberately broken scheduler must be caught (see internal/mutant),
# and each deep mutant by pct or explore: the table of runs each strategy
# needs, with the long bounds (docs/mutants.md).
mutants:
	$(GO) test -tags mutants -count=1 -run TestMutants -v ./sim/mutants
	$(GO) test -tags mutants -count=1 -timeout 30m -run TestDeepMutants -v ./sim/mutants -args -long

# The adversarial harness (internal/hostile, docs/reliability.md): HOSTILE_N
# mutated scenarios and traces, hostile flags, special output paths,
# signals, reports, a full disk and C programs misusing the ABI (hence the
# library first) against the built binary, each run under 20 s and 1 GB.
# `make test` runs a sample of 200 of them, plain `go test ./...` 90.
hostile: cabi
	$(GO) test -count=1 -timeout 30m -run TestHostile -v ./internal/hostile -hostile.n $(HOSTILE_N)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./deque ./fiber ./trace

# Real mode against goroutines, errgroup and conc, and the simulator's speed
# (docs/performance.md); takes a few minutes.
bench-real: build
	$(GO) test -run '^$$' -bench . -benchmem ./sched ./bench
	./$(BIN) bench

# Every benchmark of docs/performance.md, the test binaries of OLD and NEW
# (default: the working tree) alternating in ROUNDS rounds, with the median
# ratios; bench/compare.sh.
bench-compare:
	bash bench/compare.sh $(OLD) "$(NEW)" $(or $(ROUNDS),4)

run: build
	./$(BIN) run $(SCENARIO)

fuzz: build
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME) ./trace
	$(GO) test -run '^$$' -fuzz FuzzLoad -fuzztime $(FUZZTIME) ./sim/scenario
	./$(BIN) fuzz --seeds $(FUZZSEEDS) --out fuzz-out

clean:
	rm -rf bin
