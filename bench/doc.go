// Package bench holds elicitgen's benchmarks of the example forms against
// their baselines; bench/forms holds the synthetic forms, bench/baseline
// the jsonschema-go baseline, bench/ratios the table printer and run.sh
// runs everything. See docs/results/performance-micro.md and docs/results/performance.md.
package bench
