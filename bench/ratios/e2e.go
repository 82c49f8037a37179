package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// e2eServers are the servers of bench/e2e's BenchmarkE2E: the baseline
// first.
var e2eServers = []struct{ name, label string }{
	{"sdk", "hand-written go-sdk handler (baseline)"},
	{"elicitgen", "examples/deploy (elicitgen)"},
	{"floor", "floor: net/http + AES-GCM, precomputed bytes"},
}

// pairRatios are the ratios of subject to baseline sample by sample: the
// i-th samples of both come from the same round of bench/run.sh, measured
// within seconds of each other.
func pairRatios(s, b []float64) []float64 {
	n := min(len(s), len(b))
	rs := make([]float64, 0, n)
	for i := range n {
		if b[i] != 0 {
			rs = append(rs, s[i]/b[i])
		}
	}
	return rs
}

// ratioRange is "median× (min–max)" of the paired ratios.
func ratioRange(rs []float64) string {
	if len(rs) == 0 {
		return "?"
	}
	m := strconv.FormatFloat(median(rs), 'f', 2, 64) + "×"
	if len(rs) == 1 {
		return m
	}
	return m + " (" + strconv.FormatFloat(slices.Min(rs), 'f', 2, 64) + "–" + strconv.FormatFloat(slices.Max(rs), 'f', 2, 64) + ")"
}

func num(xs []float64, prec int) string {
	if len(xs) == 0 {
		return "?"
	}
	return strconv.FormatFloat(median(xs), 'f', prec, 64)
}

// e2eTable prints the end-to-end table, if the results hold BenchmarkE2E,
// and returns the number of targets not met: server CPU per round of
// elicitgen at most 0.8× the baseline's at concurrency 8.
func e2eTable(results map[string]*result) int {
	if results["E2E/c=8/sdk"] == nil {
		return 0
	}
	fmt.Println()
	fmt.Println("| e2e deploy round | server | server CPU / round | ratio to baseline (median, range) | rounds/s | ratio | p50 / p99 | heap / round | GC / 1000 rounds | RSS after | target | met |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
	unmet := 0
	// Extra cases (ELICITGEN_E2E_EXTRA) after the known ones.
	servers := slices.Clone(e2eServers)
	var extra []string
	for name := range results {
		rest, ok := strings.CutPrefix(name, "E2E/c=8/")
		if ok && !slices.ContainsFunc(e2eServers, func(s struct{ name, label string }) bool { return s.name == rest }) {
			extra = append(extra, rest)
		}
	}
	slices.Sort(extra)
	for _, name := range extra {
		servers = append(servers, struct{ name, label string }{name, "extra: " + name})
	}
	for _, c := range []string{"1", "8", "32"} {
		base := results["E2E/c="+c+"/sdk"]
		if base == nil {
			continue
		}
		for _, s := range servers {
			r := results["E2E/c="+c+"/"+s.name]
			if r == nil {
				continue
			}
			cpu := r.metrics["srv-us/round"]
			cpuRatio, rateRatio := "1", "1"
			if s.name != "sdk" {
				cpuRatio = ratioRange(pairRatios(cpu, base.metrics["srv-us/round"]))
				rateRatio = ratioRange(pairRatios(r.metrics["rounds/s"], base.metrics["rounds/s"]))
			}
			target, verdict := "", ""
			if s.name == "elicitgen" && c == "8" {
				target, verdict = "≤ 0.8×", "yes"
				if median(pairRatios(cpu, base.metrics["srv-us/round"])) > 0.8 {
					verdict = "**no**"
					unmet++
				}
			}
			kB := slices.Clone(r.metrics["srv-B/round"])
			for i := range kB {
				kB[i] /= 1000
			}
			fmt.Printf("| c=%s | %s | %s µs | %s | %s | %s | %s / %s µs | %s kB, %s allocs | %s | %s MiB | %s | %s |\n", c, s.label,
				num(cpu, 0), cpuRatio, num(r.metrics["rounds/s"], 0), rateRatio,
				num(r.metrics["p50-us"], 0), num(r.metrics["p99-us"], 0),
				num(kB, 0), num(r.metrics["srv-allocs/round"], 0), num(r.metrics["srv-GC/kround"], 0),
				num(r.metrics["srv-RSS-MiB"], 1), target, verdict)
		}
	}
	fmt.Printf("\nE2E: medians of %d runs; ratios paired run by run (range: min–max).\n", len(results["E2E/c=8/sdk"].metrics["srv-us/round"]))
	return unmet
}
