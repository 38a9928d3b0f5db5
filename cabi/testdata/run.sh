#!/bin/sh
# run.sh compiles every cabi/testdata/test_*.c with $CC (cc by default)
# against bin/libjanus_sched.so and runs it; it stops at the first failure.
# Run it from the repository root after `make cabi` (make cabi-test does both).
set -eu
CC=${CC:-cc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for src in cabi/testdata/test_*.c; do
	name=$(basename "$src" .c)
	"$CC" -O2 -Wall -Werror -o "$out/$name" "$src" -Icabi -Lbin -ljanus_sched -pthread
	if ! LD_LIBRARY_PATH=bin "$out/$name"; then
		echo "FAIL $name" >&2
		exit 1
	fi
done
echo "ok   cabi C tests"
