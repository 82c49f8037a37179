package refuse

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/internal/testkit/fakeclock"
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

func newClock() *fakeclock.Clock {
	return fakeclock.New(time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC))
}

// wanted is a refusal line as a test expects it.
type wanted struct {
	msg, reason string
	suppressed  float64
}

// wantLines checks the records of buf against want, at Warn on the tool
// deploy, with the reason's check, and nothing else in them.
func wantLines(t *testing.T, buf *bytes.Buffer, want []wanted) {
	t.Helper()
	got := records(t, buf)
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), buf.String())
	}
	allowed := map[string]bool{"time": true, "level": true, "msg": true, "tool": true, "reason": true, "check": true, "suppressed": true}
	for i, w := range want {
		r := got[i]
		s, _ := r["suppressed"].(float64)
		if r["level"] != "WARN" || r["msg"] != w.msg || r["reason"] != w.reason || s != w.suppressed || r["tool"] != "deploy" || r["check"] == "" {
			t.Errorf("line %d: %v, want %+v at WARN", i, r, w)
		}
		for k := range r {
			if !allowed[k] {
				t.Errorf("line %d carries %q: %v", i, k, r)
			}
		}
	}
}

// TestLogIsRateLimited: one Warn line per kind and reason each interval;
// a refusal that finds its window closed before the window's report says
// how many were not logged, and the report is cancelled (not made twice);
// kinds and reasons apart.
func TestLogIsRateLimited(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil)) // Info: the default level
	clock := newClock()
	start := clock.Now()
	l := &Log{Clock: clock}
	for range 5 {
		l.Refused(logger, State, "deploy", seal.RefusedExpired)
	}
	l.Refused(logger, State, "deploy", seal.RefusedOtherAudience)
	l.Refused(logger, Token, "deploy", seal.RefusedExpired)
	clock.Advance(DefaultEvery - time.Second)
	l.Refused(logger, State, "deploy", seal.RefusedExpired)
	clock.Set(start.Add(DefaultEvery))
	l.Refused(logger, State, "deploy", seal.RefusedExpired)
	clock.Advance(10 * DefaultEvery)
	wantLines(t, &buf, []wanted{
		{"elicitgen: requestState refused", "expired", 0},
		{"elicitgen: requestState refused", "other_audience", 0},
		{"elicitgen: confirmation token refused", "expired", 0},
		{"elicitgen: requestState refused", "expired", 5},
	})
	if n := clock.Pending(); n != 0 {
		t.Errorf("%d timers pending with nothing to report", n)
	}
}

// TestBurstReportedWhenWindowCloses: 300 refusals after a logged one, then
// silence: when the window closes, one line says suppressed=300 with the
// reason, and nothing else (no state, token, argument or user); a refusal
// with nothing suppressed after it gets no report; the next refusal after
// the report is not reported with the 300 again; each reason gets its own
// report; no timer is left when nothing is pending.
func TestBurstReportedWhenWindowCloses(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	clock := newClock()
	l := &Log{Clock: clock}
	l.Refused(logger, Token, "deploy", seal.RefusedUsed) // alone: no report
	for range 301 {
		l.Refused(logger, State, "deploy", seal.RefusedExpired)
	}
	for range 7 {
		l.Refused(logger, State, "deploy", seal.RefusedOtherUser)
	}
	first := []wanted{
		{"elicitgen: confirmation token refused", "already_used", 0},
		{"elicitgen: requestState refused", "expired", 0},
		{"elicitgen: requestState refused", "other_user", 0},
	}
	clock.Advance(DefaultEvery - time.Nanosecond)
	wantLines(t, &buf, first) // the window is still open
	clock.Advance(time.Nanosecond)
	reported := append(first,
		wanted{"elicitgen: requestState refused", "expired", 300},
		wanted{"elicitgen: requestState refused", "other_user", 6})
	wantLines(t, &buf, reported)
	if n := clock.Pending(); n != 0 {
		t.Errorf("%d timers pending after the reports", n)
	}
	clock.Advance(10 * DefaultEvery)
	wantLines(t, &buf, reported) // reported once
	l.Refused(logger, State, "deploy", seal.RefusedExpired)
	reported = append(reported, wanted{"elicitgen: requestState refused", "expired", 0})
	wantLines(t, &buf, reported) // a fresh window, not the 300 again
	l.Refused(logger, State, "deploy", seal.RefusedExpired)
	clock.Advance(DefaultEvery)
	wantLines(t, &buf, append(reported, wanted{"elicitgen: requestState refused", "expired", 1}))
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
