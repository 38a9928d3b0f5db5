#!/usr/bin/env bash
# The one-scheduler coverage comparison (docs/policies.md, "Coverage"):
# which statements of the scheduler core that real-mode runs execute are
# never reached by seeded runs. It builds cbcsim with coverage of the
# core, runs seeded campaigns (check over the bundled scenarios at 1, 2
# and 4 workers under random and pct, fuzz, explore on every bundled
# scenario) and real-mode campaigns (check --real, and --real --lean),
# and prints the real-run statements outside the real driver's own files
# (real.go, yield_*.go, blocking.go) that no seeded run reached, by file,
# then each of them.
#
# usage: bench/tools/coverage.sh [SEEDS]   (default 40; the issue's runs used 50)
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=${1:-40}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -cover -coverpkg=./cmd/cbcsim,./sched/...,./nursery,./deque,./fiber -o "$work/cbcsim" ./cmd/cbcsim
mkdir -p "$work/seeded" "$work/real"

seeded() { GOCOVERDIR="$work/seeded" "$work/cbcsim" "$@" >/dev/null 2>&1 || true; }
real() { GOCOVERDIR="$work/real" "$work/cbcsim" "$@" >/dev/null 2>&1 || true; }

for strategy in random pct; do
	seeded check scenarios --seeds "$seeds" --workers 1,2,4 --strategy "$strategy" --out "" --resample 0
done
seeded check scenarios/bugs --seeds "$seeds" --workers 1,2,4 --out "" --resample 0
seeded check scenarios/scale --seeds 5 --workers 1,2,4 --out "" --resample 0
seeded fuzz --seeds 300 --out "$work/fuzz-out"
# Traces of formats 1 (every task kept) and 2 (no policy decisions) replay
# on the seeded driver in their own modes.
for tr in sim/testdata/v1/*.trace sim/testdata/v2/*.trace; do
	seeded replay "$tr"
done
for sc in scenarios/*.toml; do
	seeded explore "$sc" --workers 1,2 --preemptions 1 --max-schedules 2000 --out "$work/explore-out"
done
real check scenarios --seeds "$seeds" --workers 1,2,4 --real --out "" --resample 0
real check scenarios --seeds "$seeds" --workers 1,2,4 --real --lean --out "" --resample 0
real check scenarios/scale --seeds 5 --workers 1,2,4 --real --out "" --resample 0

go tool covdata textfmt -i="$work/seeded" -o "$work/seeded.txt"
go tool covdata textfmt -i="$work/real" -o "$work/real.txt"
go run ./bench/tools/covdiff "$work/real.txt" "$work/seeded.txt"
