package main

import (
	"testing"

	"github.com/elicitgen/elicitgen/bench/baseline"
)

// Accepted content of the report's forms, as the SDK hands it over.
var (
	formatContent   = map[string]any{"format": "markdown"}
	salariesContent = map[string]any{"include": true}
)

// BenchmarkDecode measures the report's decoders against the jsonschema-go
// baseline (bench/run.sh runs it; bench/ratios prints the table).
func BenchmarkDecode(b *testing.B) {
	b.Run("report.FormatChoice", func(b *testing.B) {
		baseline.BenchDecode[FormatChoice, *FormatChoice, FormatChoice](b, FormatChoice{}.ElicitSchema(), formatContent)
	})
	b.Run("report.SalariesChoice", func(b *testing.B) {
		baseline.BenchDecode[SalariesChoice, *SalariesChoice, SalariesChoice](b, SalariesChoice{}.ElicitSchema(), salariesContent)
	})
}

// TestBenchedContents keeps the benchmarks honest: both decoders accept the
// content they are measured on, and agree on it.
func TestBenchedContents(t *testing.T) {
	var f FormatChoice
	if fj := baseline.DecodeBoth[FormatChoice, *FormatChoice, FormatChoice](t, &f, formatContent); f != fj || f.Format != Markdown {
		t.Errorf("FormatChoice: generated %+v, jsonschema-go %+v", f, fj)
	}
	var s SalariesChoice
	if sj := baseline.DecodeBoth[SalariesChoice, *SalariesChoice, SalariesChoice](t, &s, salariesContent); s != sj || !s.Include {
		t.Errorf("SalariesChoice: generated %+v, jsonschema-go %+v", s, sj)
	}
}
