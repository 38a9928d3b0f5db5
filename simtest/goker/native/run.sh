#!/bin/sh
# run.sh measures how often plain `go test` shows each original GoKer
# blocking kernel: it builds every kernel's test binary once and runs it
# RUNS times (default 50), each run with -test.count=1 under a per-run
# timeout, and counts the runs that fail (a test failure, the runtime's
# "all goroutines are asleep" or the test timeout). A kernel whose bug
# only leaks goroutines passes under plain go test, and counts as 0.
#
#   fetch GoBench, then:
#   simtest/goker/native/run.sh /path/to/gobench/gobench/goker/blocking > simtest/goker/testdata/native.txt
#
# Output: one line per kernel, "<project>_<id> <failures>/<runs>".
# Up to JOBS (default 4) kernels run at once; a blocked run sleeps, so
# this loads the machine little, but the rates are those of a shared
# 2-core machine, not of an idle one.
set -eu
src=${1:?usage: run.sh GOKER_BLOCKING_DIR}
runs=${RUNS:-50}
jobs=${JOBS:-4}
timeout=${TIMEOUT:-2s}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src"/. "$work"/
printf 'module gokernative\n\ngo 1.22\n' > "$work/go.mod"
cd "$work"
for d in */*/; do
	d=${d%/}
	name=$(echo "$d" | tr / _)
	go test -c -o "bin/$name.test" "./$d" >/dev/null
done
# One kernel: RUNS runs of its binary, the failures counted.
one='
	fails=0 i=0
	while [ "$i" -lt "$RUNS" ]; do
		timeout -s KILL 30 "bin/$1.test" -test.count=1 -test.timeout="$TIMEOUT" >/dev/null 2>&1 || fails=$((fails + 1))
		i=$((i + 1))
	done
	echo "$1 $fails/$RUNS"
'
export RUNS="$runs" TIMEOUT="$timeout"
ls bin | sed 's/\.test$//' | xargs -P "$jobs" -I{} sh -c "$one" sh {} | sort
