package transport_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/tasks"
	"github.com/elicitgen/elicitgen/internal/testkit/httpt"
	"github.com/elicitgen/elicitgen/internal/testkit/procserver"
	"github.com/elicitgen/elicitgen/internal/testkit/rss"
	"github.com/elicitgen/elicitgen/internal/transport"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// floodInitialize is the initialize of a 2025-11-25 client that sends
// nothing more, as the flood did.
const floodInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"flood","version":"0"}}}`

// floodSessionBytes is the cost of one idle anonymous session that only
// initialized (docs/security/hardening-http.md: about 9 KiB of heap and stack),
// with room: the bound of the flood is this times
// DefaultMaxAnonymousSessions.
const floodSessionBytes = 16 << 10

// sessionMemory is what sessions hold: the heap's objects and the
// goroutines' stacks (a session's goroutine is most of it), after a GC.
func sessionMemory() uint64 {
	s := []metrics.Sample{{Name: heapMetric}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() + s[1].Value.Uint64()
}

// TestAnonymousSessionFloodMemoryIsBounded: issue 35, finding 2. 10,000
// initializes without a token, of the 2025-11-25 era, sent to the handler
// serving the deploy tool (procserver.Server, in this process) with
// default options over HTTP on 127.0.0.1
// from 157 client addresses of 127.0.0.0/8, 64 each on one keep-alive
// connection, four addresses at a time. Every one is answered (200, or
// 429 with Retry-After), and afterwards the heap and stacks above their
// baseline stay under DefaultMaxAnonymousSessions × 16 KiB (32 MiB;
// measured: 18 MiB) and the goroutines under one per session allowed: the
// sessions closed to make room are gone. Before the bound, the 10,000
// sessions held 72 MiB of heap and stacks (RSS 21 -> 101 MiB) and 10,000
// goroutines until their idle timeout.
func TestAnonymousSessionFloodMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 10,000 initializes")
	}
	if raceEnabled {
		t.Skip("the race detector's instrumentation distorts the heap figures")
	}
	server := procserver.Server(&elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring()})
	srv := httptest.NewServer(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil, transport.Hooks{Listen: tasks.ServeListen}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	debug.FreeOSMemory()
	base, baseRoutines := sessionMemory(), runtime.NumGoroutine()
	baseRSS, _ := rss.KiB(0)

	const requests, perAddress = 10_000, elicitrt.DefaultMaxAnonymousSessionsPerAddress
	addresses := (requests + perAddress - 1) / perAddress
	var mu sync.Mutex
	statuses := map[int]int{}
	work := make(chan int)
	var wg sync.WaitGroup
	// A goroutine count past the bound stops the flood there: a server
	// that keeps every session fails in seconds, not after 10,000.
	limit := baseRoutines + elicitrt.DefaultMaxAnonymousSessions + 64
	var overflow atomic.Int64
	for range 4 {
		wg.Go(func() {
			for a := range work {
				if n := runtime.NumGoroutine(); n > limit {
					overflow.CompareAndSwap(0, int64(n))
					continue
				}
				c := httpt.FromAddress(t, fmt.Sprintf("127.0.%d.%d", 1+a/250, 2+a%250))
				for range min(perAddress, requests-a*perAddress) {
					status, header, _ := httpt.PostWith(t, c, srv.URL, nil, floodInitialize)
					if status == http.StatusTooManyRequests && header.Get("Retry-After") == "" {
						status = -status
					}
					mu.Lock()
					statuses[status]++
					mu.Unlock()
				}
				c.CloseIdleConnections()
			}
		})
	}
	for a := range addresses {
		work <- a
	}
	close(work)
	wg.Wait()
	if n := overflow.Load(); n != 0 {
		t.Fatalf("%d goroutines during the flood, more than %d (one a session allowed, %d before)", n, limit, baseRoutines)
	}

	debug.FreeOSMemory()
	heap, routines := sessionMemory(), runtime.NumGoroutine()
	after, _ := rss.KiB(0)
	bound := uint64(elicitrt.DefaultMaxAnonymousSessions * floodSessionBytes)
	held := max(routines-baseRoutines, 1) // a goroutine a session
	t.Logf("%d initializes from %d addresses: HTTP status counts %v; %d goroutines more (about one a session held); heap and stacks %.1f MiB above baseline, %.1f KiB a session (bound %d MiB); RSS %.1f -> %.1f MiB",
		requests, addresses, statuses, held, mib(heap-min(base, heap)), float64(heap-min(base, heap))/1024/float64(held), bound>>20,
		float64(baseRSS)/1024, float64(after)/1024)
	if statuses[http.StatusOK]+statuses[http.StatusTooManyRequests] != requests {
		t.Errorf("not every initialize got 200 or 429 with Retry-After: %v", statuses)
	}
	if heap > base && heap-base > bound {
		t.Errorf("heap and stacks %.1f MiB above baseline after the flood, bound %d MiB", mib(heap-base), bound>>20)
	}
	if routines > limit {
		t.Errorf("%d goroutines after the flood, more than %d (one a session allowed, %d before)", routines, limit, baseRoutines)
	}
}
