package machine_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/testkit/syncbuf"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// TestFallbackLoggedOncePerClient: a request that cannot show a step takes
// its fallback, and the server's log says so at Info, once per client,
// era, declared modes, step and fallback, naming the client as it named
// itself ("claude-code 2.1.280 (2025-11-25) declares form only: step
// billing of connect falls back to the link"), on both eras; never the
// arguments or the user. A client name that would write a line of its own
// is quoted (the log here prints messages as they are, as console
// handlers do), and a client that rotates its name gets at most 256 lines.
func TestFallbackLoggedOncePerClient(t *testing.T) {
	var logs syncbuf.Buffer
	opts := &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring(), Grants: &backend.MemoryGrants{},
		Logger:    slog.New(rawMessages{w: &logs}),
		Principal: func(*mcp.CallToolRequest) string { return "alice-the-user" }}
	server := linkServer(opts)() // one server, so one machine, for every client
	connect := func(name, version, era string) *mcp.ClientSession {
		t.Helper()
		client := mcp.NewClient(&mcp.Implementation{Name: name, Version: version}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return nil, fmt.Errorf("not asked")
			}})
		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		var sopts *mcp.ClientSessionOptions
		if era == "legacy" {
			sopts = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
		}
		cs, err := client.Connect(t.Context(), ct, sopts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	call := func(cs *mcp.ClientSession) {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "connect", Arguments: map[string]any{"note": "s3cr3t-argument"}})
		if err != nil || !strings.Contains(hosttest.Text(res), "?flow=") {
			t.Fatalf("the link fallback: %+v %v", res, err)
		}
	}
	lines := func(substr string) int { return strings.Count(logs.String(), substr) }
	for _, era := range []string{"legacy", "modern"} {
		version := map[string]string{"legacy": "2025-11-25", "modern": "2026-07-28"}[era]
		cs := connect("claude-code", "2.1.280", era)
		for range 3 {
			call(cs)
		}
		want := "claude-code 2.1.280 (" + version + ") declares form only: step billing of connect falls back to the link"
		if n := lines(want); n != 1 {
			t.Fatalf("%s: %d lines %q, want one:\n%s", era, n, want, logs.String())
		}
	}
	call(connect("cursor", "1.0", "legacy"))
	if n := lines("cursor 1.0 (2025-11-25) declares form only"); n != 1 {
		t.Fatalf("another client: %d lines:\n%s", n, logs.String())
	}
	call(connect("evil\nlevel=ERROR msg=forged", "1", "legacy"))
	if strings.Contains(logs.String(), "\nlevel=ERROR msg=forged") || !strings.Contains(logs.String(), `"evil\nlevel=ERROR msg=forged"`) {
		t.Fatalf("a client wrote a line of its own:\n%s", logs.String())
	}
	for _, secret := range []string{"s3cr3t-argument", "alice-the-user"} {
		if strings.Contains(logs.String(), secret) || !strings.Contains(logs.String(), "tool=connect") {
			t.Fatalf("the log holds %q:\n%s", secret, logs.String())
		}
	}
	for i := range 300 {
		call(connect(fmt.Sprintf("rotating-%d", i), "1", "legacy"))
	}
	if n := lines("falls back to"); n != 256 {
		t.Fatalf("%d fallback lines, want the bound of 256", n)
	}
}

// rawMessages is a slog handler that prints each record as it is, one a
// line, its message and attributes unescaped, as console handlers do.
type rawMessages struct {
	w     *syncbuf.Buffer
	attrs []slog.Attr
}

func (rawMessages) Enabled(context.Context, slog.Level) bool { return true }
func (h rawMessages) Handle(_ context.Context, r slog.Record) error {
	line := r.Level.String() + " " + r.Message
	r.Attrs(func(a slog.Attr) bool { h.attrs = append(h.attrs, a); return true })
	for _, a := range h.attrs {
		line += " " + a.Key + "=" + a.Value.String()
	}
	_, err := h.w.Write([]byte(line + "\n"))
	return err
}
func (h rawMessages) WithAttrs(a []slog.Attr) slog.Handler {
	return rawMessages{h.w, append(append([]slog.Attr(nil), h.attrs...), a...)}
}
func (h rawMessages) WithGroup(string) slog.Handler { return h }
