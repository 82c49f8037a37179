package e2estats

import (
	"bytes"
	"log/slog"
	"net"
	"strings"
	"testing"
)

// TestLoopback: the stats and profile addresses that listen on loopback
// only, and those that listen beyond it.
func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:0":        true,
		"localhost:9000":     true,
		"[::1]:9000":         true,
		":0":                 false,
		"0.0.0.0:9000":       false,
		"[::]:9000":          false,
		"192.0.2.1:9000":     false,
		"stats.example:9000": false,
		"9000":               false,
	} {
		if got := loopback(addr); got != want {
			t.Errorf("loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestAnnounceWarnsBeyondLoopback: an address beyond loopback is logged at
// Warn, naming it; a loopback one is not.
func TestAnnounceWarnsBeyondLoopback(t *testing.T) {
	before := slog.Default()
	t.Cleanup(func() { slog.SetDefault(before) })
	for addr, warn := range map[string]bool{":0": true, "0.0.0.0:9000": true, "127.0.0.1:0": false} {
		var buf bytes.Buffer
		slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
		announce(addr, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9000})
		got := strings.Contains(buf.String(), "level=WARN") && strings.Contains(buf.String(), "addr="+addr)
		if got != warn {
			t.Errorf("announce(%q) logged %q, want a warning: %v", addr, buf.String(), warn)
		}
	}
}
