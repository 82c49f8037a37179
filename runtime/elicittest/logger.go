package elicittest

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// The runtime's logs under the kit (ToolOptions.Logger, unless
// Options.Tool sets one) go to the test's log, t.Log: shown with the
// test's output when it fails or under go test -v, each line under the
// test that caused it, never on the process's standard error. A line the
// server logs after the test ended (a task's goroutine winding down) is
// dropped: t.Log may not be called then.

// testLogger returns a logger writing Info and above to t.Log until t
// ends.
func testLogger(t testing.TB) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(w.close)
	return slog.New(slog.NewTextHandler(w, nil))
}

// testWriter writes each log record as one t.Log line.
type testWriter struct {
	mu    sync.Mutex
	t     testing.TB
	ended bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.ended {
		w.t.Log(strings.TrimSuffix(string(p), "\n"))
	}
	return len(p), nil
}

func (w *testWriter) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = true
}
