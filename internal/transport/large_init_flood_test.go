package transport_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/elicitgen/elicitgen/internal/testkit/httpt"
	"github.com/elicitgen/elicitgen/internal/testkit/procserver"
	"github.com/elicitgen/elicitgen/internal/testkit/rss"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// largeInitRSSBound is the resident memory the deploy command
// (procserver/deploy) may reach
// with the bound's anonymous sessions open, each from the largest
// initialize the body limit allows (docs/security/hardening-http.md).
const largeInitRSSBound = 200 << 20

// largeInitialize is a 2025-11-25 initialize of exactly size bytes that
// declares form and URL elicitation and the tasks extension, the rest
// being capabilities.experimental: 2,000 members of about 100 bytes,
// then one string filling the body to size.
func largeInitialize(t *testing.T, size int) string {
	var exp strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&exp, `"k%04d":"%s",`, i, strings.Repeat("v", 100))
	}
	head := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{` +
		`"elicitation":{"form":{},"url":{}},"extensions":{"io.modelcontextprotocol/tasks":{}},"experimental":{` + exp.String() + `"pad":"`
	tail := `"}},"clientInfo":{"name":"large","version":"0"}}}`
	n := size - len(head) - len(tail)
	if n < 0 {
		t.Fatalf("the initialize's capabilities alone exceed %d bytes", size)
	}
	return head + strings.Repeat("p", n) + tail
}

// TestLargeInitializeFloodMemoryIsBounded: issue 46, finding 1. The built
// deploy command (procserver/deploy, as an example's main serves),
// serving HTTP on 127.0.0.1 with default options, gets the
// anonymous-session bound's 2048 initializes (64 from each of 32
// addresses of 127.0.0.0/8 on one keep-alive connection each, four
// addresses at a time), each exactly at the default body limit, its
// capabilities about 256 kB. Every one opens a session; the process's
// resident memory (VmRSS) stays under 200 MiB, and a small request is
// still answered. After each address, resident memory above the baseline
// is checked against the bound's share of the sessions opened so far, so
// a server whose sessions keep their initialize fails after a few
// hundred. Before the sessions kept only what the server reads (when
// they kept their decoded params) it failed there, at about 1 MiB a
// session.
func TestLargeInitializeFloodMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 2048 initializes of 256 KiB")
	}
	if raceEnabled {
		t.Skip("the race detector's instrumentation distorts the memory figures")
	}
	p := procserver.Start(t, "deploy")
	pid := p.Cmd.Process.Pid
	base, err := rss.KiB(pid)
	if err != nil {
		t.Skip(err)
	}
	body := largeInitialize(t, elicitrt.DefaultMaxRequestBodyBytes)
	const sessions, perAddress = elicitrt.DefaultMaxAnonymousSessions, elicitrt.DefaultMaxAnonymousSessionsPerAddress
	// The bound's share of each session, above the baseline: a session
	// that keeps its initialize exceeds it many times over.
	perSession := (int64(largeInitRSSBound>>10) - base) / sessions
	var opened, failed atomic.Int64
	var overMu sync.Mutex
	var over string
	work := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for a := range work {
				if failed.Load() != 0 {
					continue
				}
				c := httpt.FromAddress(t, fmt.Sprintf("127.0.9.%d", 2+a))
				for range perAddress {
					status, header, _ := httpt.PostWith(t, c, p.URL, nil, body)
					if status != http.StatusOK || header.Get("Mcp-Session-Id") == "" {
						failed.Add(1)
						continue
					}
					opened.Add(1)
				}
				c.CloseIdleConnections()
				n := opened.Load()
				if now, err := rss.KiB(pid); err == nil && now-base > n*perSession+32<<10 {
					overMu.Lock()
					over = fmt.Sprintf("after %d sessions, resident memory %d MiB above the baseline of %d MiB: %.0f KiB a session, bound %d KiB",
						n, (now-base)>>10, base>>10, float64(now-base)/float64(n), perSession)
					overMu.Unlock()
					failed.Add(1)
				}
			}
		})
	}
	for a := range sessions / perAddress {
		work <- a
	}
	close(work)
	wg.Wait()
	if over != "" {
		t.Fatal(over)
	}
	after, _ := rss.KiB(pid)
	t.Logf("%d sessions opened by initializes of %d bytes: resident memory %.1f -> %.1f MiB, %.1f KiB a session (bound %d MiB)",
		opened.Load(), len(body), float64(base)/1024, float64(after)/1024, float64(after-base)/float64(max(opened.Load(), 1)), largeInitRSSBound>>20)
	if failed.Load() != 0 || opened.Load() != sessions {
		t.Fatalf("%d of %d initializes opened a session (%d failed): %s", opened.Load(), sessions, failed.Load(), p.Stderr())
	}
	if after<<10 >= largeInitRSSBound {
		t.Errorf("resident memory %.1f MiB with %d sessions open, bound %d MiB", float64(after)/1024, sessions, largeInitRSSBound>>20)
	}
	list := procserver.ListTools(2)
	if status, _, data := httpt.PostWith(t, http.DefaultClient, p.URL, procserver.Headers(list), list); status != http.StatusOK || !strings.Contains(string(data), `"name":"deploy"`) {
		t.Errorf("a small request after the flood: HTTP %d %.300s", status, data)
	}
}
