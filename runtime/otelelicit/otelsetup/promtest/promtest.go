// Package promtest scrapes a server's Prometheus endpoint (otelsetup serves
// it) in tests, and reads samples of the families it parses.
package promtest

import (
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scrape gets url, a server's /metrics (otelsetup serves it), and parses
// the Prometheus text exposition into its metric families, by name.
func Scrape(t testing.TB, url string) map[string]*dto.MetricFamily {
	t.Helper()
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing the exposition: %v", err)
	}
	return families
}

// labelled reports whether m has every label of want.
func labelled(m *dto.Metric, want map[string]string) bool {
	have := map[string]string{}
	for _, l := range m.GetLabel() {
		have[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// Sample sums the counter values of f's metrics labelled with want (every
// label of want, and any others).
func Sample(f *dto.MetricFamily, want map[string]string) float64 {
	n := 0.0
	for _, m := range f.GetMetric() {
		if labelled(m, want) {
			n += m.GetCounter().GetValue()
		}
	}
	return n
}

// HistogramCount sums the sample counts of f's histograms labelled with
// want.
func HistogramCount(f *dto.MetricFamily, want map[string]string) float64 {
	n := 0.0
	for _, m := range f.GetMetric() {
		if labelled(m, want) {
			n += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return n
}
