package hosttest

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestLogBuffer: a server's logger writes to a LogBuffer from several
// goroutines while the test reads it; every record arrives whole, one per
// line, and a line not yet ended is not among Lines. Run with -race.
func TestLogBuffer(t *testing.T) {
	var logs LogBuffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				logger.Info("record", "g", g, "i", i)
			}
		})
	}
	for range 20 {
		_ = logs.Lines() // read while the goroutines write
	}
	wg.Wait()
	lines := logs.Lines()
	if len(lines) != 200 {
		t.Fatalf("%d lines, want 200:\n%s", len(lines), logs.String())
	}
	for g := range 4 {
		for i := range 50 {
			want := fmt.Sprintf("msg=record g=%d i=%d", g, i)
			if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasSuffix(l, want) }) {
				t.Errorf("no line ends with %q", want)
			}
		}
	}
	fmt.Fprint(&logs, "partial")
	if got := logs.Lines(); len(got) != 200 || !strings.HasSuffix(logs.String(), "\npartial") {
		t.Errorf("after an unended line: %d lines, String ends %q", len(got), logs.String()[len(logs.String())-10:])
	}
	var empty LogBuffer
	if got := empty.Lines(); got != nil || empty.String() != "" {
		t.Errorf("zero LogBuffer: Lines %q, String %q", got, empty.String())
	}
}
