package machine

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/elicitgen/elicitgen/internal/seal"
)

// sharedGuard stands for a replay guard other instances share (Redis):
// any guard that is not the memory one.
type sharedGuard struct{ backend.MemoryReplayGuard }

// sharedTasks stands for a task store other instances share.
type sharedTasks struct{ backend.MemoryTaskStore }

// TestSetupWarnings: a server whose stores are shared warns at start-up,
// once per process, of a random key ring and of a loopback audience; one
// with memory stores, or with shared keys and audience, does not.
func TestSetupWarnings(t *testing.T) {
	warnedSetups.Clear()
	t.Cleanup(warnedSetups.Clear)
	fixed, err := seal.NewKeyring(bytes.Repeat([]byte{7}, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opts elicitrt.ToolOptions
		keys *seal.Keyring
		want []string
	}{
		{"memory stores", elicitrt.ToolOptions{Audience: "http://127.0.0.1:8080"}, seal.RandomKeyring(), nil},
		{"shared, set up", elicitrt.ToolOptions{Replay: &sharedGuard{}, Audience: "https://deploy.example"}, fixed, nil},
		{"shared, random keys", elicitrt.ToolOptions{Replay: &sharedGuard{}}, seal.RandomKeyring(), []string{"key ring is random"}},
		{"shared, loopback audience", elicitrt.ToolOptions{Tasks: &sharedTasks{}, Audience: "http://localhost:8081"}, fixed, []string{"loopback"}},
		{"shared, both, again", elicitrt.ToolOptions{Replay: &sharedGuard{}, Audience: "http://[::1]:9"}, seal.RandomKeyring(), nil}, // once per process
	} {
		var buf bytes.Buffer
		warnSetup(&c.opts, c.keys, slog.New(slog.NewTextHandler(&buf, nil)))
		lines := strings.Count(buf.String(), "level=WARN")
		if lines != len(c.want) {
			t.Errorf("%s: %d warnings, want %d:\n%s", c.name, lines, len(c.want), buf.String())
		}
		for _, w := range c.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s: no warning of %q:\n%s", c.name, w, buf.String())
			}
		}
	}
}
