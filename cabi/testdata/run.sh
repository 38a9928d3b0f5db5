#!/bin/sh
# run.sh compiles every cabi/testdata/test_*.c with $CC (cc by default)
# against bin/libjanus_sched.so and runs it with a scratch directory as its
# argument; it stops at the first failure. Then it runs the deterministic
# test again in another process (its traces must not change) and hands
# its traces to bin/cbcsim: diff must find the two seed-7 traces equal
# and the seed-8 one different, export must turn one into a timeline,
# replay must refuse one (exit 2).
# Run it from the repository root after `make build cabi` (make cabi-test).
# LIBDIR names the directory of the library to test (bin by default).
set -eu
CC=${CC:-cc}
LIBDIR=${LIBDIR:-bin}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for src in cabi/testdata/test_*.c; do
	name=$(basename "$src" .c)
	# -fstack-clash-protection: C code a task runs must probe its large
	# frames (docs/c-abi.md#stacks), as the library's own is built to.
	"$CC" -O2 -Wall -Werror -fstack-clash-protection -o "$out/$name" "$src" -Icabi -L"$LIBDIR" -ljanus_sched -pthread
	if ! LD_LIBRARY_PATH="$LIBDIR" "$out/$name" "$out" 2>"$out/$name.err"; then
		cat "$out/$name.err" >&2
		echo "FAIL $name" >&2
		exit 1
	fi
	# The library reports a deterministic run that livelocked, deadlocked
	# or broke an invariant on standard error: that fails the test too.
	if grep '^janus:' "$out/$name.err" >&2; then
		echo "FAIL $name: the library reported a problem" >&2
		exit 1
	fi
done
# Another process, the same program and seed: the same traces (nothing
# of one process, such as an address, may reach a trace).
mkdir "$out/again"
LD_LIBRARY_PATH="$LIBDIR" "$out/test_deterministic" "$out/again" >/dev/null
for f in c-seed7-w2-a.trace c-seed8-w4.trace; do
	cmp -s "$out/$f" "$out/again/$f" || {
		echo "FAIL test_deterministic: $f differs between two processes" >&2
		exit 1
	}
done
bin/cbcsim diff "$out/c-seed7-w2-a.trace" "$out/c-seed7-w2-b.trace" >"$out/same.txt" || {
	cat "$out/same.txt" >&2
	echo "FAIL cbcsim diff: one seed's traces differ" >&2
	exit 1
}
status=0
bin/cbcsim diff "$out/c-seed7-w2-a.trace" "$out/c-seed8-w4.trace" >"$out/differ.txt" 2>&1 || status=$?
if [ "$status" -ne 1 ]; then
	cat "$out/differ.txt" >&2
	echo "FAIL cbcsim diff: seed 7 on 2 workers against seed 8 on 4: exit $status, want 1" >&2
	exit 1
fi
bin/cbcsim export "$out/c-seed7-w2-a.trace" --format chrome -o "$out/c.json"
grep -q '"traceEvents"' "$out/c.json" || {
	echo "FAIL cbcsim export: no traceEvents in the timeline" >&2
	exit 1
}
# A C program's trace embeds no program: replay refuses it, exit 2, saying so.
status=0
bin/cbcsim replay "$out/c-seed7-w2-a.trace" >"$out/replay.txt" 2>&1 || status=$?
if [ "$status" -ne 2 ] || ! grep -q 'C program.*not replayable' "$out/replay.txt"; then
	cat "$out/replay.txt" >&2
	echo "FAIL cbcsim replay of a C program's trace: exit $status, want 2 and a message" >&2
	exit 1
fi
echo "test_deterministic: the same traces from another process; cbcsim diff (same seed: equal; other seed and workers: differ, exit 1) and export: ok"
echo "ok   cabi C tests ($LIBDIR/libjanus_sched.so)"
