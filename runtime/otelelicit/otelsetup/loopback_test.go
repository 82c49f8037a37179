package otelsetup

import "testing"

// TestLoopback: the addresses that listen on loopback only, and those
// that listen beyond it (every interface, another address, a name that
// may resolve to anything, what does not parse).
func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:9464":         true,
		"127.0.0.2:9464":         true,
		"localhost:9464":         true,
		"LocalHost:9464":         true,
		"[::1]:9464":             true,
		"[::1%lo]:9464":          true,
		"127.0.0.1:0":            true,
		":9464":                  false,
		":0":                     false,
		"0.0.0.0:9464":           false,
		"[::]:9464":              false,
		"[::ffff:0.0.0.0]:9464":  false,
		"192.0.2.1:9464":         false,
		"[2001:db8::1]:9464":     false,
		"metrics.example:9464":   false,
		"localhost.example:9464": false,
		"9464":                   false,
		"":                       false,
	} {
		if got := loopback(addr); got != want {
			t.Errorf("loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
