package main

import (
	"strings"
	"testing"
)

// sample is go test -bench -benchmem output: a decode benchmark reporting
// its multi-selects, its floor and its baseline, twice, and a line that is
// not a result.
const sample = `goos: linux
BenchmarkDecode/flows.Colors/generated-2   	24000000	        48.00 ns/op	         1.000 multi-selects	      48 B/op	       1 allocs/op
BenchmarkDecode/flows.Colors/generated-2   	24000000	        50.00 ns/op	         1.000 multi-selects	      48 B/op	       2 allocs/op
BenchmarkDecode/flows.Colors/generated-2   	24000000	        52.00 ns/op	         1.000 multi-selects	      48 B/op	       1 allocs/op
BenchmarkDecode/flows.Colors/floor-2       	30000000	        38.00 ns/op	      48 B/op	       1 allocs/op
BenchmarkDecode/flows.Colors/jsonschema-2  	  300000	      4000 ns/op	    2000 B/op	      56 allocs/op
BenchmarkDecode/flows.Colors/jsonschema-2  	  300000	      6000 ns/op	    2000 B/op	      56 allocs/op
PASS
`

func TestParseReadsEveryMetric(t *testing.T) {
	results, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 3 {
		t.Fatalf("got %d results, want 3: %v", len(results), results)
	}
	g := results["Decode/flows.Colors/generated"]
	if g == nil || median(g.ns) != 50 || median(g.allocs) != 1 || median(g.bytes) != 48 || median(g.metrics["multi-selects"]) != 1 {
		t.Fatalf("generated: %+v", g)
	}
	if b := results["Decode/flows.Colors/jsonschema"]; median(b.ns) != 5000 {
		t.Fatalf("baseline: %+v", b)
	}
}

func TestDecodeBudgetIsTheReportedMultiSelects(t *testing.T) {
	results, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	var got []row
	for _, r := range rows(results) {
		if r.group == "decode flows.Colors" {
			got = append(got, r)
		}
	}
	if len(got) != 2 || got[0].subject != "Decode/flows.Colors/generated" || got[0].maxAllocs != 1 || got[0].target != 100 ||
		got[1].subject != "Decode/flows.Colors/floor" || got[1].maxAllocs != -1 {
		t.Fatalf("rows: %+v", got)
	}
	delete(results["Decode/flows.Colors/generated"].metrics, "multi-selects")
	if r := rows(results)[0]; r.maxAllocs != -1 {
		t.Fatalf("without the metric, the budget is %d, want none (-1)", r.maxAllocs)
	}
}
