package transport_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/tasks"
	"github.com/elicitgen/elicitgen/internal/testkit/procserver"
	"github.com/elicitgen/elicitgen/internal/transport"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// Memory under hostile load: 64 concurrent requests whose bodies are
// exactly at the default body limit, of the shapes that used to crash the
// server, sent to the handler serving the deploy tool (procserver.Server,
// in this process) over HTTP on 127.0.0.1, while a sampler records the
// peak of the heap.

// loadConcurrency is the number of requests in flight at once.
const loadConcurrency = 64

// heapMetric is the runtime metric sampled: bytes of heap objects, live or
// not yet swept (what runtime.MemStats calls HeapAlloc).
const heapMetric = "/memory/classes/heap/objects:bytes"

// heapSampler records the peak of heapMetric until stopped.
type heapSampler struct {
	stop chan struct{}
	done chan struct{}
	peak uint64
}

// heapNow reads heapMetric once.
func heapNow() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// startHeapSampler samples heapMetric every 500µs.
func startHeapSampler() *heapSampler {
	h := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		tick := time.NewTicker(500 * time.Microsecond)
		defer tick.Stop()
		for {
			if v := heapNow(); v > h.peak {
				h.peak = v
			}
			select {
			case <-h.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

// Stop ends sampling and returns the peak.
func (h *heapSampler) Stop() uint64 {
	close(h.stop)
	<-h.done
	if v := heapNow(); v > h.peak {
		h.peak = v
	}
	return h.peak
}

// loadTarget is the deploy tool's server behind the HTTP handler (with
// the tasks' hook, as serve.NewHTTPHandler wires it) with default options, on 127.0.0.1, and the hostile bodies to send it, each
// exactly DefaultMaxRequestBodyBytes long.
type loadTarget struct {
	url    string
	client *http.Client
	bodies [][]byte
}

func newLoadTarget(tb testing.TB) *loadTarget {
	tb.Helper()
	server := procserver.Server(&elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring()})
	srv := httptest.NewServer(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil, transport.Hooks{Listen: tasks.ServeListen}))
	tb.Cleanup(srv.Close)
	lt := &loadTarget{url: srv.URL, client: &http.Client{
		Timeout:   60 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: loadConcurrency},
	}}
	tb.Cleanup(lt.client.CloseIdleConnections)

	status, data := lt.post(tb, []byte(procserver.Call(`{"service":"api"}`, "", "")))
	res, _ := procserver.Reply(tb, "first round", data)
	state, _ := res["requestState"].(string)
	if status != http.StatusOK || state == "" {
		tb.Fatalf("first round: %d %.300s", status, data)
	}
	const limit = elicitrt.DefaultMaxRequestBodyBytes
	formats := []string{
		procserver.Call(`{"service":"api"}`, state, `{"target":{"action":"accept","content":{"environment":"prod","pad":"%s"}}}`),
		procserver.Call(`{"service":"api"}`, "", `{"target":{"action":"accept","content":{"environment":"prod","pad":"%s"}}}`),
		procserver.Call(`{"service":"api"}`, state, `{"target":{"action":"%s"}}`),
		procserver.Call(`{"service":"%s"}`, "", ""),
	}
	for _, f := range formats {
		body := fmt.Sprintf(f, strings.Repeat("A", limit-len(fmt.Sprintf(f, ""))))
		if len(body) != limit {
			tb.Fatalf("body is %d bytes, want %d", len(body), limit)
		}
		lt.bodies = append(lt.bodies, []byte(body))
	}
	return lt
}

// post sends one 2026-07-28 tools/call and returns the status and the
// JSON-RPC reply.
func (lt *loadTarget) post(tb testing.TB, body []byte) (int, string) {
	req, err := http.NewRequest(http.MethodPost, lt.url, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "deploy"} {
		req.Header.Set(k, v)
	}
	resp, err := lt.client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	data := string(raw)
	if i := strings.Index(data, "data: "); i >= 0 {
		data = strings.TrimSpace(data[i+len("data: "):])
	}
	return resp.StatusCode, data
}

// wave sends loadConcurrency requests at once (the bodies in turn) and
// returns the number that got HTTP 200 with a JSON-RPC reply.
func (lt *loadTarget) wave(tb testing.TB) int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	start := make(chan struct{})
	for i := range loadConcurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			status, data := lt.post(tb, lt.bodies[i%len(lt.bodies)])
			if status == http.StatusOK && strings.HasPrefix(data, `{"jsonrpc":"2.0"`) {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	close(start)
	wg.Wait()
	return ok
}

// TestHostileLoadMemoryIsBounded sends four waves of 64 concurrent
// maximum-size hostile requests and checks that every one is answered and
// that the heap's peak above its baseline stays under 64 × limit × 8
// (128 MiB): a server that kept several copies of each body, or of what it
// decodes from it, for long would fail.
func TestHostileLoadMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 256 requests of 256 KiB")
	}
	if raceEnabled {
		t.Skip("the race detector's instrumentation distorts the heap figures; .ci/test runs it without -race")
	}
	lt := newLoadTarget(t)
	lt.wave(t) // warm up connections and caches
	runtime.GC()
	base := heapNow()
	sampler := startHeapSampler()
	start := time.Now()
	const waves = 4
	for w := range waves {
		if ok := lt.wave(t); ok != loadConcurrency {
			t.Errorf("wave %d: %d of %d requests answered with 200 and a JSON-RPC reply", w, ok, loadConcurrency)
		}
	}
	elapsed := time.Since(start)
	peak := sampler.Stop()
	const limit = elicitrt.DefaultMaxRequestBodyBytes
	bound := uint64(loadConcurrency * limit * 8)
	t.Logf("%d waves of %d concurrent %d KiB requests in %v: heap baseline %.1f MiB, peak %.1f MiB, peak above baseline %.1f MiB (bound %d MiB; bodies in flight %d MiB)",
		waves, loadConcurrency, limit>>10, elapsed.Round(time.Millisecond), mib(base), mib(peak), mib(peak-min(base, peak)), bound>>20, loadConcurrency*limit>>20)
	if peak > base && peak-base > bound {
		t.Errorf("peak heap above baseline %.1f MiB > bound %d MiB", mib(peak-base), bound>>20)
	}
}

// BenchmarkHostileLoad is one wave of 64 concurrent maximum-size hostile
// requests per iteration; it reports the peak heap above the baseline.
// Like the test, it skips under the race detector (a wave takes 20 s
// there); .ci/test runs it plainly.
func BenchmarkHostileLoad(b *testing.B) {
	if raceEnabled {
		b.Skip("the race detector distorts the heap figures and takes 20 s a wave; .ci/test runs it without -race")
	}
	lt := newLoadTarget(b)
	lt.wave(b)
	runtime.GC()
	base := heapNow()
	sampler := startHeapSampler()
	b.ResetTimer()
	for b.Loop() {
		if ok := lt.wave(b); ok != loadConcurrency {
			b.Fatalf("%d of %d answered", ok, loadConcurrency)
		}
	}
	b.StopTimer()
	peak := sampler.Stop()
	b.ReportMetric(float64(peak-min(base, peak)), "peak-heap-B")
	b.ReportMetric(float64(loadConcurrency), "requests/op")
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
