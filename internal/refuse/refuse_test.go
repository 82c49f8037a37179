package refuse

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// records are the JSON records of buf.
func records(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// TestLogIsRateLimited: one Warn line per kind and reason each interval,
// the next saying how many were not logged; kinds and reasons apart.
func TestLogIsRateLimited(t *testing.T) {
	now := time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil)) // Info: the default level
	l := &Log{Now: func() time.Time { return now }}
	for range 5 {
		l.Refused(logger, State, "deploy", seal.RefusedExpired)
	}
	l.Refused(logger, State, "deploy", seal.RefusedOtherAudience)
	l.Refused(logger, Token, "deploy", seal.RefusedExpired)
	now = now.Add(DefaultEvery - time.Second)
	l.Refused(logger, State, "deploy", seal.RefusedExpired)
	now = now.Add(time.Second)
	l.Refused(logger, State, "deploy", seal.RefusedExpired)
	got := records(t, &buf)
	want := []struct {
		msg, reason string
		suppressed  float64
	}{
		{"elicitgen: requestState refused", "expired", 0},
		{"elicitgen: requestState refused", "other_audience", 0},
		{"elicitgen: confirmation token refused", "expired", 0},
		{"elicitgen: requestState refused", "expired", 5},
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), buf.String())
	}
	for i, w := range want {
		r := got[i]
		s, _ := r["suppressed"].(float64)
		if r["level"] != "WARN" || r["msg"] != w.msg || r["reason"] != w.reason || s != w.suppressed || r["tool"] != "deploy" || r["check"] != Hint(seal.Refusal(0)) && r["check"] == "" {
			t.Errorf("line %d: %v, want %+v at WARN", i, r, w)
		}
	}
}

// TestHints: every reason has its own hint.
func TestHints(t *testing.T) {
	seen := map[string]seal.Refusal{}
	for _, r := range seal.Refusals() {
		h := Hint(r)
		if prev, ok := seen[h]; ok {
			t.Errorf("%s and %s share the hint %q", prev, r, h)
		}
		seen[h] = r
	}
}

// TestReasonsAgree: the reasons the seal names are the ones the hooks'
// contract documents (backend.Refusals, EventRefused's Reason), in order.
func TestReasonsAgree(t *testing.T) {
	var names []string
	for _, r := range seal.Refusals() {
		names = append(names, r.String())
	}
	if got, want := strings.Join(names, " "), strings.Join(backend.Refusals, " "); got != want {
		t.Errorf("seal's reasons %q, backend.Refusals %q", got, want)
	}
}

// TestCut: a value is cut to n bytes at most, on a rune boundary, marked
// where it was cut; a short one is kept whole.
func TestCut(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijk", 10, "abcdefg…"},
		{"ééééé", 8, "éé…"}, // 10 bytes; "…" is 3: the cut backs off from byte 5 to a rune start
	} {
		if got := Cut(c.s, c.n); got != c.want || len(got) > c.n {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
	if got := Bounded(strings.Repeat("x", 1000)); len(got) != MaxValueLen {
		t.Errorf("Bounded of 1000 bytes is %d bytes, want %d", len(got), MaxValueLen)
	}
}
