#!/usr/bin/env bash
# locked.sh BIN BENCH N [PROCS]: the instructions, and the locked ones
# (a LOCK prefix, or XCHG with memory: Go's atomic stores on amd64), that
# callgrind counts in N iterations of the go benchmark BENCH of the test
# binary BIN, GOMAXPROCS=PROCS (default 1). Run it at two N and take the
# difference, as icount.sh does. Each locked instruction drains the store
# buffer: about 1 ns in a stream of other work here. Needs valgrind and
# objdump (amd64). See docs/performance.md#measuring.
set -euo pipefail
bin=$1 bench=$2 n=$3 procs=${4:-1}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
GODEBUG=asyncpreemptoff=1 GOMAXPROCS=$procs GOGC=off valgrind --tool=callgrind --fair-sched=yes --dump-instr=yes \
  --compress-pos=no --compress-strings=no --callgrind-out-file="$out" \
  "$bin" -test.run '^$' -test.bench "$bench" -test.benchtime "${n}x" >/dev/null 2>&1
# The addresses of the locked instructions, then the callgrind file's
# cost lines (address, line, Ir), skipping the costs of calls.
objdump -d --no-show-raw-insn "$bin" |
  awk '$1 ~ /^[0-9a-f]+:$/ { a = $1; sub(":", "", a); i = $2; if (i == "lock" || (i ~ /^xchg/ && $0 ~ /\(/)) print "L", a }' >"$out.locked"
awk '
  # num: a decimal or 0x-prefixed hexadecimal number (no strtonum in mawk).
  function num(s,   v, i, c) {
    if (s !~ /^0x/) return s + 0
    v = 0
    for (i = 3; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
    return v
  }
  FNR == NR { locked[num("0x" $2)] = 1; next }
  /^calls=/ { skip = 1; next }
  /^[0-9+*-]/ {
    p = $1
    if (p ~ /^0x/) addr = num(p)
    else if (p ~ /^\+/) addr += num(substr(p, 2))
    else if (p ~ /^-/) addr -= num(substr(p, 2))
    if (skip) { skip = 0; next }
    if (NF > 2) { ir += $3; if (addr in locked) lk += $3 }
  }
  END { printf "Ir %d locked %d\n", ir, lk }
' "$out.locked" "$out"
rm -f "$out.locked"
