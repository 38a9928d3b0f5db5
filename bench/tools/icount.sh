#!/usr/bin/env bash
# icount.sh BIN BENCH N1 N2 [PROCS]: instructions per iteration of the go
# benchmark BENCH (a -test.bench regexp) of the test binary BIN, counted
# by callgrind at N1 and N2 iterations, the difference over N2-N1, so that
# setup drops out. GOMAXPROCS=PROCS (default 1), GOGC=off and no
# asynchronous preemption, so that the collector's and the runtime's work
# does not move the count; repeat runs agree to about 0.1%. Needs
# valgrind. See docs/performance.md#measuring.
set -euo pipefail
bin=$1 bench=$2 n1=$3 n2=$4 procs=${5:-1}
count() {
  GODEBUG=asyncpreemptoff=1 GOMAXPROCS=$procs GOGC=off valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    "$bin" -test.run '^$' -test.bench "$bench" -test.benchtime "${1}x" 2>&1 |
    awk '/Collected/ { gsub(",", "", $4); print $4 }'
}
a=$(count "$n1")
b=$(count "$n2")
echo "$bench: $(( (b - a) / (n2 - n1) )) instructions an iteration"
