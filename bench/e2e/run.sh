#!/usr/bin/env bash
# Runs only the end-to-end benchmark (BenchmarkE2E), COUNT times, each
# run starting fresh server processes, and prints its table through
# bench/ratios. bench/run.sh runs it too, among all the others.
#
#   bash bench/e2e/run.sh                        COUNT=5 runs of 1s per case
#   COUNT=9 BENCHTIME=3s bash bench/e2e/run.sh
#   BENCH='E2E/c=8' bash bench/e2e/run.sh        concurrency 8 only
#
# Server processes inherit the environment: GOGC=400 bash bench/e2e/run.sh
# measures the servers (and the load generator) at GOGC=400.
set -euo pipefail
cd "$(dirname "$0")/../.."

COUNT=${COUNT:-5}
BENCHTIME=${BENCHTIME:-1s}
BENCH=${BENCH:-E2E}
out=bench/e2e/results.out
: > "$out"
{
	echo "# $(go version)"
	echo "# $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, GOMAXPROCS=${GOMAXPROCS:-$(nproc)}, GOGC=${GOGC:-default}"
} | tee -a "$out"
for round in $(seq "$COUNT"); do
	echo "# round $round of $COUNT, load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
	ELICITGEN_E2E_ROTATE=$round go test -run '^$' -bench "$BENCH" -benchtime "$BENCHTIME" -count 1 ./bench/e2e | tee -a "$out"
done
echo
go run ./bench/ratios < "$out"
