#!/usr/bin/env bash
# compare.sh OLD [NEW] [ROUNDS]: every benchmark of docs/performance.md,
# the test binaries of two revisions alternating in ROUNDS rounds (the
# older first in odd rounds), then per benchmark and unit each binary's
# median and the median of the rounds' new/old ratios (benchstat's way),
# with the lowest and highest of those ratios.
# NEW defaults to the working tree, ROUNDS to 4. Needs git, go and awk.
# A round takes about a minute on 2 cores. See docs/performance.md#measuring.
set -euo pipefail

if [ -z "${1:-}" ]; then
	echo "usage: bench/compare.sh OLD [NEW] [ROUNDS] (make bench-compare OLD=REV [NEW=REV] [ROUNDS=N])" >&2
	exit 2
fi
old=$1
new=${2:-}
rounds=${3:-4}
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"; git -C "$root" worktree prune' EXIT

# build REV NAME: the sched and bench test binaries of REV ("" is the
# working tree) as $work/NAME.sched and $work/NAME.bench.
build() {
	local src=$root
	if [ -n "$1" ]; then
		src=$work/src-$2
		git -C "$root" worktree add --detach --quiet "$src" "$1"
	fi
	(cd "$src" && go test -c -o "$work/$2.sched" ./sched && go test -c -o "$work/$2.bench" ./bench)
	if [ -n "$1" ]; then
		git -C "$root" worktree remove --force "$src"
	fi
}
build "$old" old
build "$new" new

# run NAME ROUND: one round of the binary NAME, as "round name benchmark
# value unit" lines.
run() {
	{
		"$work/$1.sched" -test.run '^$' -test.bench 'SpawnJoin|FanOutTree$|FiberSwitch|YieldPingPong|Rendezvous|^BenchmarkSteal$|SpawnedTasks' \
			-test.benchtime 1s -test.benchmem
		"$work/$1.sched" -test.run '^$' -test.bench 'ParkedTasks' -test.short -test.benchtime 3x
		"$work/$1.bench" -test.run '^$' -test.bench 'SimSteps|FuzzSeeds' -test.benchtime 1s
	} | awk -v r="$2" -v v="$1" '/^Benchmark/ {
		name = $1; sub(/-[0-9]+$/, "", name)
		for (i = 3; i < NF; i += 2) print r, v, name, $i, $(i + 1)
	}'
}
for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
	for v in $order; do
		echo "round $r: $v" >&2
		run "$v" "$r" >>"$work/results"
	done
done

sort -k3,3 -k5,5 "$work/results" | awk '
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function num(x) { return x >= 10000 ? sprintf("%.0f", x) : sprintf("%.4g", x) }
# flush prints the row of the benchmark and unit read so far.
function flush(    r, no, nn, nr, o, w, q) {
	if (name == "") return
	for (r = 1; r <= maxr; r++) {
		if (r in old) o[++no] = old[r]
		if (r in new) w[++nn] = new[r]
		if ((r in old) && (r in new) && old[r] != 0) q[++nr] = new[r] / old[r]
	}
	# median sorts q: then q[1] and q[nr] are the lowest and highest
	# ratios of the rounds, the spread that tells noise from a change.
	if (no && nn && nr)
		printf "| %s | %s | %s | %s | %.2fx | %.2f to %.2f |\n", name, unit, num(median(o, no)), num(median(w, nn)), median(q, nr), q[1], q[nr]
	split("", old); split("", new)
}
BEGIN {
	print "| benchmark | unit | before | after | after/before (median of rounds) | the ratios of the rounds, lowest to highest |"
	print "| --- | --- | --- | --- | --- | --- |"
}
$3 != name || $5 != unit { flush(); name = $3; unit = $5 }
{ if ($2 == "old") old[$1] = $4; else new[$1] = $4; if ($1 > maxr) maxr = $1 }
END { flush() }'
