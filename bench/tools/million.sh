#!/usr/bin/env bash
# million.sh OLD NEW ROUNDS: BenchmarkParkedTasks at a million tasks, one
# process a run under GNU time, the sched test binaries OLD and NEW
# alternating (the older first in odd rounds) with the goroutines' run in
# every round. A line a run: its benchmark line (time a batch, B/op,
# allocs, B/task) and the process's peak RSS and CPU time. A run takes
# about 20 s of CPU and 3 GB of memory. See docs/performance.md#measuring.
set -euo pipefail
old=$1 new=$2 rounds=$3
run() { # BIN LABEL IMPL
  /usr/bin/time -f "$2 $3 maxrss_kb=%M user=%U sys=%S wall=%e" "$1" -test.run '^$' \
    -test.bench "ParkedTasks/$3\$" -test.benchtime 1x -test.benchmem 2>&1 | grep -E '^Benchmark|maxrss'
}
for r in $(seq "$rounds"); do
  if (( r % 2 )); then order="old new"; else order="new old"; fi
  for which in $order; do
    bin=$old; [[ $which == new ]] && bin=$new
    run "$bin" "round$r $which" cbcsim
  done
  run "$new" "round$r" goroutines
done
