// Command ratios reads the output of go test -bench (with -benchmem, any
// -count) on standard input and prints, as a Markdown table, each
// benchmark of elicitgen's against its baseline from the same run: medians
// of ns/op and allocs/op, their ratio, the target and whether it is
// met. bench/run.sh runs the benchmarks and pipes them here.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// result is the samples of one benchmark: its ns/op, B/op, allocs/op and
// any metric it reports itself (b.ReportMetric), by unit.
type result struct {
	ns, bytes, allocs []float64
	metrics           map[string][]float64
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// line is a benchmark result: its name, iterations, then value-unit pairs.
var (
	line   = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+((?:\s+[-\d.e+]+ \S+)+)\s*$`)
	metric = regexp.MustCompile(`([-\d.e+]+) (\S+)`)
)

// parse reads benchmark lines; names are prefixed with their package's
// last path element when several packages define the same name.
func parse(r io.Reader) (map[string]*result, error) {
	results := map[string]*result{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		res := results[m[1]]
		if res == nil {
			res = &result{metrics: map[string][]float64{}}
			results[m[1]] = res
		}
		for _, pair := range metric.FindAllStringSubmatch(m[2], -1) {
			v, err := strconv.ParseFloat(pair[1], 64)
			if err != nil {
				continue
			}
			switch unit := pair[2]; unit {
			case "ns/op":
				res.ns = append(res.ns, v)
			case "B/op":
				res.bytes = append(res.bytes, v)
			case "allocs/op":
				res.allocs = append(res.allocs, v)
			default:
				res.metrics[unit] = append(res.metrics[unit], v)
			}
		}
	}
	return results, sc.Err()
}

// A row compares a subject benchmark with a baseline.
type row struct {
	group             string
	subject, baseline string // benchmark names
	sLabel, bLabel    string // what they measure, for the table
	// faster: the target is a speed-up (baseline/subject ≥ target);
	// otherwise a bound on subject/baseline (≤ target). 0: no target.
	faster bool
	target float64
	// maxAllocs is the most allocations the subject may make; -1: no
	// target.
	maxAllocs int
}

func rows(results map[string]*result) []row {
	var rs []row
	var names []string
	for n := range results {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if form, ok := strings.CutPrefix(n, "Decode/"); ok && strings.HasSuffix(form, "/generated") {
			form = strings.TrimSuffix(form, "/generated")
			// The target allows one allocation per multi-select, which
			// the benchmark reports (bench/baseline.BenchDecode).
			budget := -1
			if ms := results[n].metrics["multi-selects"]; len(ms) > 0 {
				budget = int(median(ms))
			}
			rs = append(rs, row{"decode " + form, n, "Decode/" + form + "/jsonschema", "DecodeElicit", "jsonschema-go", true, 100, budget})
			if _, ok := results["Decode/"+form+"/floor"]; ok {
				rs = append(rs, row{"decode " + form, "Decode/" + form + "/floor", "Decode/" + form + "/jsonschema", "floor: the lookups and allocation alone", "jsonschema-go", true, 0, -1})
			}
			if _, ok := results["Decode/"+form+"/hand"]; ok {
				rs = append(rs, row{"decode " + form, n, "Decode/" + form + "/hand", "DecodeElicit", "hand-written", false, 1.5, budget})
			}
		}
		if form, ok := strings.CutPrefix(n, "Schema/"); ok && strings.HasSuffix(form, "/schema/ElicitSchema") {
			form = strings.TrimSuffix(form, "/schema/ElicitSchema")
			rs = append(rs, row{"schema " + form, n, "Schema/" + form + "/schema/jsonschema.For", "ElicitSchema()", "jsonschema.For + Marshal", true, 0, 0})
			rs = append(rs, row{"params " + form, "Schema/" + form + "/params/ElicitParams", "Schema/" + form + "/params/jsonschema.For",
				"ElicitParams() + Marshal", "jsonschema.For + Marshal", true, 0, -1})
		}
	}
	for _, size := range []string{"128B", "1KiB", "8KiB"} {
		target := 0.0
		if size == "1KiB" {
			target = 1.5
		}
		rs = append(rs,
			row{"state " + size, "SealOpen/" + size, "BareAESGCM/" + size, "Seal + Open", "AES-256-GCM", false, target, -1},
			row{"state " + size, "SealOpen/" + size, "BareAESGCMBase64/" + size, "Seal + Open", "AES-256-GCM + encoding/base64", false, 0, -1},
			row{"state " + size, "SealOpenRaw/" + size, "BareAESGCM/" + size, "Seal + Open without text, reused buffers", "AES-256-GCM", false, 0, -1},
			row{"state " + size, "SealOpenFloor/" + size, "BareAESGCM/" + size, "floor: without text, the two buffers new", "AES-256-GCM", false, 0, -1},
		)
	}
	rs = append(rs, row{"round trip deploy", "RoundTrip/deploy/generated", "RoundTrip/deploy/hand", "generated machine", "hand-written handler", false, 1.10, -1})
	for _, c := range []string{"fresh", "current"} {
		rs = append(rs,
			row{"generator, 500 forms, " + c, "Generate/" + c + "/elicitgen", "Generate/" + c + "/packages.Load", "elicitgen (the command)", "packages.Load", false, 1.3, -1},
			row{"generator, 500 forms, " + c, "Generate/" + c + "/Generate-GOGC100", "Generate/" + c + "/packages.Load", "gen.Generate at GOGC=100", "packages.Load", false, 0, -1})
	}
	return rs
}

func duration(ns float64) string {
	switch {
	case ns >= 1e6:
		return strconv.FormatFloat(ns/1e6, 'f', 1, 64) + " ms"
	case ns >= 1e3:
		return strconv.FormatFloat(ns/1e3, 'f', 2, 64) + " µs"
	case ns >= 100:
		return strconv.FormatFloat(ns, 'f', 0, 64) + " ns"
	}
	return strconv.FormatFloat(ns, 'f', 1, 64) + " ns"
}

func allocs(r *result) string {
	if len(r.allocs) == 0 {
		return "?"
	}
	if m := median(r.allocs); m >= 100 {
		return strconv.FormatFloat(m, 'f', 0, 64)
	}
	return strconv.FormatFloat(median(r.allocs), 'f', -1, 64)
}

func main() {
	results, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ratios:", err)
		os.Exit(2)
	}
	if len(results) == 0 {
		fmt.Fprintln(os.Stderr, "ratios: no benchmark results on standard input")
		os.Exit(2)
	}
	unmet, printed := 0, false
	for _, r := range rows(results) {
		s, b := results[r.subject], results[r.baseline]
		if s == nil || b == nil {
			continue
		}
		if !printed {
			fmt.Println("| comparison | elicitgen | baseline | elicitgen time | baseline time | ratio | allocs (elicitgen / baseline) | target | met |")
			fmt.Println("|---|---|---|---:|---:|---:|---:|---|---|")
			printed = true
		}
		sn, bn := median(s.ns), median(b.ns)
		var ratio, target string
		met := true
		if r.faster {
			ratio = strconv.FormatFloat(bn/sn, 'f', 0, 64) + "× faster"
			if bn/sn < 10 {
				ratio = strconv.FormatFloat(bn/sn, 'f', 1, 64) + "× faster"
			}
			if r.target > 0 {
				target = "≥ " + strconv.FormatFloat(r.target, 'f', -1, 64) + "× faster"
				met = bn/sn >= r.target
			}
		} else {
			ratio = strconv.FormatFloat(sn/bn, 'f', 2, 64) + "×"
			if r.target > 0 {
				target = "≤ " + strconv.FormatFloat(r.target, 'f', -1, 64) + "×"
				met = sn/bn <= r.target
			}
		}
		if r.maxAllocs >= 0 && len(s.allocs) > 0 {
			if target != "" {
				target += ", "
			}
			target += "≤ " + strconv.Itoa(r.maxAllocs) + " allocs"
			met = met && median(s.allocs) <= float64(r.maxAllocs)
		}
		verdict := ""
		if target != "" {
			verdict = "yes"
			if !met {
				verdict = "**no**"
				unmet++
			}
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s / %s | %s | %s |\n", r.group, r.sLabel, r.bLabel,
			duration(sn), duration(bn), ratio, allocs(s), allocs(b), target, verdict)
	}
	counts := []int{}
	for _, r := range results {
		counts = append(counts, len(r.ns))
	}
	if printed {
		fmt.Printf("\nMedians of %d to %d runs per benchmark; %d target(s) not met.\n", slices.Min(counts), slices.Max(counts), unmet)
	}
	if n := e2eTable(results); n > 0 {
		fmt.Printf("%d end-to-end target(s) not met.\n", n)
	}
}
