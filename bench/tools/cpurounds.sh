#!/usr/bin/env bash
# cpurounds.sh BIN ROUNDS BENCH:ITERS...: CPU time (user plus system of
# the process) an operation, at GOMAXPROCS=1 (or $GOMAXPROCS), of each go
# benchmark BENCH (a -test.bench regexp) of the test binary BIN run for
# ITERS iterations, the benchmarks alternating in ROUNDS rounds. A line a
# run: "rN BENCH NS ns/op-cpu". Choose ITERS for a second or more a run:
# the process's CPU time has a 10 ms resolution. Setup is included, so
# compare benchmarks with the same ITERS. Needs GNU time.
set -euo pipefail
bin=$1 rounds=$2
shift 2
for r in $(seq "$rounds"); do
  for spec in "$@"; do
    b=${spec%%:*} n=${spec##*:}
    { GOMAXPROCS=${GOMAXPROCS:-1} /usr/bin/time -f "CPU %U %S" "$bin" -test.run '^$' -test.bench "$b" -test.benchtime "${n}x" -test.count 1 >/dev/null; } 2>&1 |
      awk -v b="$b" -v n="$n" -v r="$r" '/^CPU/ { printf "r%d %s %.1f ns/op-cpu\n", r, b, ($2 + $3) * 1e9 / n }'
  done
done
