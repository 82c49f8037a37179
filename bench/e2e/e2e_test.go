package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/bench/e2e/e2estats"
)

// The servers of the comparison, in the order each concurrency runs them.
var subjects = []struct {
	name, pkg, tags string
}{
	{"sdk", "github.com/elicitgen/elicitgen/bench/e2e/sdkserver", ""},
	{"elicitgen", "github.com/elicitgen/elicitgen/examples/deploy", "e2ebench"},
	{"floor", "github.com/elicitgen/elicitgen/bench/e2e/floorserver", ""},
}

// server is one running server process.
type server struct {
	name  string
	url   string // the MCP endpoint
	stats string // GET this for e2estats.Stats
	cmd   *exec.Cmd
}

var (
	setupOnce sync.Once
	running   []*server
	setupErr  error
	tmpDir    string
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, s := range running {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
	if tmpDir != "" {
		os.RemoveAll(tmpDir)
	}
	os.Exit(code)
}

// extraSubjects reads ELICITGEN_E2E_EXTRA: NAME=BINARY pairs separated by
// commas, servers built beforehand (with e2estats; for examples/deploy,
// -tags e2ebench) that run as further cases after "elicitgen". This is
// how a lever is measured against the code without it: build the deploy
// server of the other tree and name it here, e.g.
// ELICITGEN_E2E_EXTRA=before=/tmp/deploy-before.
func extraSubjects() ([][2]string, error) {
	var out [][2]string
	for _, pair := range strings.Split(os.Getenv("ELICITGEN_E2E_EXTRA"), ",") {
		if pair == "" {
			continue
		}
		name, bin, ok := strings.Cut(pair, "=")
		if !ok || name == "" || bin == "" {
			return nil, fmt.Errorf("ELICITGEN_E2E_EXTRA: %q is not NAME=BINARY", pair)
		}
		out = append(out, [2]string{name, bin})
	}
	return out, nil
}

// servers builds and starts the three servers (and any extra ones), once
// per test binary.
func servers(tb testing.TB) []*server {
	tb.Helper()
	setupOnce.Do(func() {
		tmpDir, setupErr = os.MkdirTemp("", "elicitgen-e2e-")
		if setupErr != nil {
			return
		}
		extra, err := extraSubjects()
		if err != nil {
			setupErr = err
			return
		}
		for _, sub := range subjects {
			bin := filepath.Join(tmpDir, sub.name)
			args := []string{"build", "-o", bin}
			if sub.tags != "" {
				args = append(args, "-tags", sub.tags)
			}
			out, err := exec.Command("go", append(args, sub.pkg)...).CombinedOutput()
			if err != nil {
				setupErr = fmt.Errorf("go build %s: %v\n%s", sub.pkg, err, out)
				return
			}
			s, err := start(sub.name, bin)
			if err != nil {
				setupErr = err
				return
			}
			running = append(running, s)
			if sub.name == "elicitgen" {
				// Extra binaries run right after the subject they vary.
				for _, x := range extra {
					s, err := start(x[0], x[1])
					if err != nil {
						setupErr = err
						return
					}
					running = append(running, s)
				}
			}
		}
	})
	if setupErr != nil {
		tb.Fatal(setupErr)
	}
	return running
}

// start runs bin on a free loopback port and waits for the two addresses
// it logs: the MCP endpoint's and the stats endpoint's.
func start(name, bin string) (*server, error) {
	cmd := exec.Command(bin, "-http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), e2estats.Env+"=127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{name: name, cmd: cmd}
	found := make(chan struct{})
	go func() {
		announced := false
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if _, url, ok := strings.Cut(line, "serving MCP at "); ok && s.url == "" {
				s.url = strings.TrimSpace(url)
			}
			if _, addr, ok := strings.Cut(line, "e2estats: serving at "); ok && s.stats == "" {
				s.stats = "http://" + strings.TrimSpace(addr) + "/stats"
			}
			if s.url != "" && s.stats != "" && !announced {
				close(found) // s.url and s.stats are not written again
				announced = true
			}
		}
	}()
	select {
	case <-found:
		return s, nil
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("%s did not log its addresses in 20s", name)
	}
}

func (s *server) read() (e2estats.Stats, error) {
	var st e2estats.Stats
	resp, err := http.Get(s.stats)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// control starts or stops the server's CPU profile or, for "allocs", reads
// its heap profile; stop and allocs write the profile to file.
func (s *server) control(verb, file string) error {
	url := strings.TrimSuffix(s.stats, "/stats") + "/profile/" + verb
	var resp *http.Response
	var err error
	if verb == "allocs" {
		resp, err = http.Get(url)
	} else {
		resp, err = http.Post(url, "", nil)
	}
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile %s: HTTP %d: %s", verb, resp.StatusCode, body)
	}
	if file != "" {
		return os.WriteFile(file, body, 0o644)
	}
	return nil
}

// The round: deploy api with no environment from a 2026-07-28 client that
// declares form elicitation; the server asks the target question
// (input_required with a requestState); the retry answers staging, notify
// on; the server completes. Staging needs no confirmation, so this is one
// round: two HTTP requests.
const (
	meta      = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"e2e","version":"v0"}}`
	callBody  = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"api"},` + meta + `}}`
	retryHead = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"api"},"inputResponses":{"target":{"action":"accept","content":{"environment":"staging","notify":true}}},` + meta + `,"requestState":"`
	retryTail = `"}}`
	wantText  = `"text":"Deploying api to staging and posting in #deployments."`
)

var headers = http.Header{
	"Content-Type":         {"application/json"},
	"Accept":               {"application/json, text/event-stream"},
	"Mcp-Protocol-Version": {"2026-07-28"},
	"Mcp-Method":           {"tools/call"},
	"Mcp-Name":             {"deploy"},
}

// client is a load generator's connection pool and buffers.
type client struct {
	hc  *http.Client
	url string
}

func newClient(url string, conns int) *client {
	return &client{url: url, hc: &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: conns, DisableCompression: true,
	}}}
}

// post sends body and returns the JSON-RPC message of the response, from
// an application/json body or the first data line of an event stream.
func (c *client) post(ctx context.Context, body []byte, buf *bytes.Buffer) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = headers.Clone()
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	buf.Reset()
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, buf.Bytes())
	}
	msg := buf.Bytes()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		i := bytes.Index(msg, []byte("data: "))
		if i < 0 {
			return nil, fmt.Errorf("event stream without data: %s", msg)
		}
		msg = msg[i+len("data: "):]
		if j := bytes.IndexByte(msg, '\n'); j >= 0 {
			msg = msg[:j]
		}
	}
	return msg, nil
}

// round runs the deploy round once.
func (c *client) round(ctx context.Context, buf *bytes.Buffer, retry []byte) error {
	msg, err := c.post(ctx, []byte(callBody), buf)
	if err != nil {
		return err
	}
	if !bytes.Contains(msg, []byte(`"resultType":"input_required"`)) || !bytes.Contains(msg, []byte(`"target":{"method":"elicitation/create"`)) {
		return fmt.Errorf("call: want input_required asking target, got %s", msg)
	}
	const key = `"requestState":"`
	i := bytes.Index(msg, []byte(key))
	if i < 0 {
		return fmt.Errorf("call: no requestState in %s", msg)
	}
	state := msg[i+len(key):]
	state = state[:bytes.IndexByte(state, '"')]
	retry = append(append(append(retry[:0], retryHead...), state...), retryTail...)
	msg, err = c.post(ctx, retry, buf)
	if err != nil {
		return err
	}
	if !bytes.Contains(msg, []byte(wantText)) || !bytes.Contains(msg, []byte(`"resultType":"complete"`)) {
		return fmt.Errorf("retry: want the staging deploy, got %s", msg)
	}
	return nil
}

// TestRound checks that every server answers the benchmark's round as the
// deploy tool does, so that the benchmark compares like with like.
func TestRound(t *testing.T) {
	for _, s := range servers(t) {
		c := newClient(s.url, 1)
		var buf bytes.Buffer
		if err := c.round(t.Context(), &buf, nil); err != nil {
			t.Errorf("%s: %v", s.name, err)
		}
		// A tampered state must not complete.
		msg, err := c.post(t.Context(), []byte(retryHead+"AAAA"+retryTail), &buf)
		if err == nil && bytes.Contains(msg, []byte(wantText)) {
			t.Errorf("%s completed with a forged requestState: %s", s.name, msg)
		}
	}
}

// BenchmarkE2E runs the round against each server at concurrency 1, 8 and
// 32: the servers interleave within each concurrency, and bench/run.sh
// repeats the whole benchmark COUNT times. ns/op is wall time per round
// (the inverse of throughput); the server's own counters are read before
// and after. Metrics: srv-us/round (server CPU, user plus system),
// rounds/s, p50-us and p99-us (client-side latency of a round),
// srv-allocs/round and srv-B/round (heap), srv-RSS-MiB (resident memory
// after the run) and srv-GC/kround (GC cycles per thousand rounds).
// With ELICITGEN_E2E_PROFILE=DIR, each case also writes the server's CPU
// profile over its last run to DIR/NAME-cC.pprof and its allocations since
// start to DIR/NAME-cC.allocs.pprof.
func BenchmarkE2E(b *testing.B) {
	ss := slices.Clone(servers(b))
	// ELICITGEN_E2E_ROTATE=N starts each concurrency's cases at the N-th
	// server (bench/e2e/run.sh passes the round number), so that no server
	// always runs first, or right after the same one.
	if n, err := strconv.Atoi(os.Getenv("ELICITGEN_E2E_ROTATE")); err == nil && len(ss) > 0 {
		n %= len(ss)
		ss = append(ss[n:], ss[:n]...)
	}
	for _, conc := range []int{1, 8, 32} {
		for _, s := range ss {
			b.Run(fmt.Sprintf("c=%d/%s", conc, s.name), func(b *testing.B) { load(b, s, conc) })
		}
	}
}

func load(b *testing.B, s *server, conc int) {
	c := newClient(s.url, conc)
	ctx := b.Context()
	before, err := s.read()
	if err != nil {
		b.Fatal(err)
	}
	var (
		next    atomic.Int64
		mu      sync.Mutex
		lats    []time.Duration
		failure error
		wg      sync.WaitGroup
	)
	n := int64(b.N)
	profile := os.Getenv("ELICITGEN_E2E_PROFILE")
	if profile != "" {
		if err := s.control("start", ""); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	begin := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var (
				buf   bytes.Buffer
				retry = make([]byte, 0, 512)
				mine  []time.Duration
			)
			for next.Add(1) <= n {
				t0 := time.Now()
				if err := c.round(ctx, &buf, retry); err != nil {
					mu.Lock()
					failure = errors.Join(failure, err)
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lats = append(lats, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(begin)
	b.StopTimer()
	if failure != nil {
		b.Fatal(failure)
	}
	after, err := s.read()
	if err != nil {
		b.Fatal(err)
	}
	if profile != "" {
		if err := s.control("stop", filepath.Join(profile, fmt.Sprintf("%s-c%d.pprof", s.name, conc))); err != nil {
			b.Fatal(err)
		}
		if err := s.control("allocs", filepath.Join(profile, fmt.Sprintf("%s-c%d.allocs.pprof", s.name, conc))); err != nil {
			b.Fatal(err)
		}
	}
	c.hc.CloseIdleConnections()
	slices.Sort(lats)
	rounds := float64(b.N)
	b.ReportMetric(float64(after.CPUNanos-before.CPUNanos)/rounds/1e3, "srv-us/round")
	b.ReportMetric(rounds/elapsed.Seconds(), "rounds/s")
	b.ReportMetric(float64(lats[len(lats)/2].Microseconds()), "p50-us")
	b.ReportMetric(float64(lats[min(len(lats)-1, len(lats)*99/100)].Microseconds()), "p99-us")
	b.ReportMetric(float64(after.Allocs-before.Allocs)/rounds, "srv-allocs/round")
	b.ReportMetric(float64(after.AllocBytes-before.AllocBytes)/rounds, "srv-B/round")
	b.ReportMetric(float64(after.RSS)/(1<<20), "srv-RSS-MiB")
	b.ReportMetric(float64(after.GCs-before.GCs)*1000/rounds, "srv-GC/kround")
}
