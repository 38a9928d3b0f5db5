#!/usr/bin/env bash
# make stress: ROUNDS passes of `go test -race` over PKGS, each beside two
# busy loops (one per core of the 2-core machines), stopping at the first
# failure. The loops are killed however the script ends.
set -euo pipefail
rounds=${1:-3}
shift
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./sched)
busy() { while :; do :; done; }
busy & b1=$!
busy & b2=$!
trap 'kill $b1 $b2 2>/dev/null || true' EXIT
for ((r = 1; r <= rounds; r++)); do
	echo "stress: round $r of $rounds beside two busy loops: ${pkgs[*]}"
	go test -race -count=1 -timeout 30m "${pkgs[@]}"
done
echo "stress: $rounds round(s), no failure"
