#!/usr/bin/env bash
# Runs elicitgen's benchmarks, each case against its baseline in the same
# run, and prints the table of ratios of docs/results/performance-micro.md.
#
#   bash bench/run.sh              COUNT=6 rounds, each running every benchmark once
#   COUNT=10 bash bench/run.sh     more rounds
#
# The raw output of go test is kept in bench/results.out (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."

COUNT=${COUNT:-6}
out=bench/results.out
: > "$out"

{
	echo "# $(go version)"
	echo "# $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, GOMAXPROCS=${GOMAXPROCS:-$(nproc)}"
} | tee -a "$out"

run() { go test -run '^$' -benchmem -count 1 "$@" | tee -a "$out"; }

# go test -count N runs each benchmark N times in a row, so that a subject
# and its baseline would be measured seconds apart, under whatever else the
# machine did meanwhile. Instead, each of the COUNT rounds runs every
# benchmark once: subject and baseline interleave, and the medians compare
# like with like.
for round in $(seq "$COUNT"); do
	echo "# round $round of $COUNT" | tee -a "$out"
	# Decoding and schemas: the example forms and the synthetic ones.
	run -bench 'Decode|Schema' ./bench/... ./examples/deploy ./examples/conformance
	# Sealed state: Seal plus Open against bare AES-256-GCM (internal/seal/state_test.go).
	run -bench 'SealOpen|BareAESGCM' ./internal/seal
	# A deploy round trip through the SDK, generated machine against hand-written.
	run -bench 'RoundTrip' ./examples/deploy
	# One deploy round over streamable HTTP on loopback, three server
	# processes (hand-written go-sdk, examples/deploy, floor) at
	# concurrency 1, 8 and 32 (bench/e2e; docs/results/performance.md).
	ELICITGEN_E2E_ROTATE=$round run -bench 'E2E' ./bench/e2e
	# The generator on 500 forms against a bare packages.Load (each run is slow).
	run -bench 'Generate' -benchtime 10x ./gen
done

echo
go run ./bench/ratios < "$out"
