GO ?= go
BIN := bin/cbcsim
SCENARIO ?= scenarios/fail_fast.toml

.PHONY: build test test-race vet bench run fuzz clean

build:
	$(GO) build -o $(BIN) ./cmd/cbcsim

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }

# Every test. Concurrent packages run under the race detector.
test: vet
	$(GO) test -race -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./deque ./fiber

run: build
	./$(BIN) --version
	./$(BIN) --help

clean:
	rm -rf bin
