// Package hosttest tests a server as an MCP host meets it: a real Go SDK
// client connects in memory, over streamable HTTP on 127.0.0.1 (through
// runtime/serve's dual-era handler) or over stdio to a built binary, on
// protocol 2026-07-28 or 2025-11-25, with a User answering each raw
// elicitation. Hosts emulates the hosts of docs/results/hosts.md (their
// capabilities, era and what they do with a question); Options.Manual
// turns off the SDK client's multi round-trip loop, so that a test sees
// and sends each input_required round itself. A LogBuffer holds a
// server's log or a process's stderr while the test reads it.
//
// It is the low level of the public kit, for what a conversation script
// cannot say: hostile content, raw rounds, a host's own behaviour. The
// package above it, runtime/elicittest, plays scripts on the same
// connections (Options.Transport). docs/guide/testing.md describes both.
package hosttest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/serve"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transports and eras every flow test runs on.
var (
	Transports = []string{"memory", "http"}
	Eras       = []string{"modern", "legacy"}
)

// User plays the person at the keyboard: it answers each elicitation with
// the next scripted reply and records what it was asked.
type User struct {
	mu      sync.Mutex
	Replies []*mcp.ElicitResult
	Asked   []*mcp.ElicitParams
	// OnAsk, if set, sees every question before it is answered (a test
	// starts the user's browser from it).
	OnAsk func(*mcp.ElicitParams)
	// Answer, if set, answers each question instead of Replies: a client
	// may show the questions of one round in any order.
	Answer func(*mcp.ElicitParams) *mcp.ElicitResult
	// Completed lists the elicitationIds of the
	// notifications/elicitation/complete received (2025-11-25).
	Completed []string
	// Shows, if set, says what the person saw of a question (Sees);
	// unset: "form: " or "URL step: " and its message.
	Shows func(*mcp.ElicitParams) string
	// Drops, if set, is how long the host leaves a call open after it
	// dropped a question: the user records each question and never
	// answers it; CallTool then abandons the call at once.
	Drops              string
	dropped, abandoned chan struct{}
}

// Handle is an mcp.ClientOptions.ElicitationHandler.
func (u *User) Handle(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.Asked = append(u.Asked, req.Params)
	if u.Drops != "" {
		return u.drop(ctx)
	}
	if u.OnAsk != nil {
		u.OnAsk(req.Params)
	}
	if u.Answer != nil {
		return u.Answer(req.Params), nil
	}
	if len(u.Replies) == 0 {
		return nil, errors.New("unexpected question: " + req.Params.Message)
	}
	r := u.Replies[0]
	u.Replies = u.Replies[1:]
	return r, nil
}

// drop tells CallTool a question was dropped and waits, unlocked, until
// the call is abandoned; u.mu is held on entry and on return.
func (u *User) drop(ctx context.Context) (*mcp.ElicitResult, error) {
	if u.dropped == nil {
		return nil, errors.New("hosttest: a user that drops questions answers only inside CallTool")
	}
	dropped, abandoned := u.dropped, u.abandoned
	select {
	case <-dropped:
	default:
		close(dropped)
	}
	u.mu.Unlock()
	defer u.mu.Lock()
	select {
	case <-ctx.Done():
	case <-abandoned:
	}
	return nil, errors.New("hosttest: the question was dropped")
}

// HandleComplete is an mcp.ClientOptions.ElicitationCompleteHandler.
func (u *User) HandleComplete(ctx context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.Completed = append(u.Completed, req.Params.ElicitationID)
}

// CompletedIDs returns a copy of Completed.
func (u *User) CompletedIDs() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.Completed...)
}

// Accept is an accepting reply with content.
func Accept(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

// Options configure a client.
type Options struct {
	// User answers elicitations; nil declares no elicitation at all.
	User *User
	// Capabilities, when set, replace the capabilities the SDK infers.
	Capabilities *mcp.ClientCapabilities
	// Manual turns off the SDK client's own MRTR loop, so the test sees
	// each input_required result.
	Manual bool
	// Command is the server process of the "stdio" transport.
	Command func() *exec.Cmd
	// Client names the client in initialize and _meta (default test v0).
	Client *mcp.Implementation
}

// RunWithBinary is a TestMain body for a main package's tests: it builds
// the package in dir into a temporary directory, stores the binary's path
// in *bin, runs the tests and removes the binary. A process that runs no
// test or benchmark (a fuzz worker, or -run '^$' without -bench) builds
// nothing and leaves *bin empty: fuzzing a main package's decoders costs
// no go build per process, and a fuzz target that used the binary would
// fail at once.
func RunWithBinary(m *testing.M, dir string, bin *string) int {
	if !runsTests() {
		return m.Run()
	}
	tmp, err := os.MkdirTemp("", "hosttest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	if *bin, err = BuildBinary(dir, filepath.Join(tmp, "server")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// BinCacheVar names a directory where BuildBinary keeps the binaries it
// builds, by package directory, and takes them from on the next call,
// in any process: the repository's mutation tool sets it, since every mutant of a run
// is in one build (the mutant is chosen when the binary runs), so that
// each test run does not link its server again. Unset, every call builds.
const BinCacheVar = "ELICITGEN_TEST_BIN_CACHE"

// BuildBinary builds the main package in dir (go build, with the
// environment's GOFLAGS) as out, or, with BinCacheVar set, returns the
// cached build of dir, building it there first.
func BuildBinary(dir, out string) (string, error) {
	cache := os.Getenv(BinCacheVar)
	if cache == "" {
		return out, goBuild(dir, out)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	cached := filepath.Join(cache, hex.EncodeToString(sum[:8])+"-"+filepath.Base(abs))
	if _, err := os.Stat(cached); err == nil {
		return cached, nil
	}
	// Built aside and renamed, so that a process started meanwhile
	// never runs half a binary.
	tmp := fmt.Sprintf("%s.%d", cached, os.Getpid())
	if err := goBuild(dir, tmp); err != nil {
		return "", err
	}
	return cached, os.Rename(tmp, cached)
}

func goBuild(dir, out string) error {
	if msg, err := exec.Command("go", "build", "-o", out, dir).CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", dir, err, msg)
	}
	return nil
}

// runsTests reports whether this test process may run a test or a
// benchmark, from its flags.
func runsTests() bool {
	flag.Parse()
	value := func(name string) string {
		if f := flag.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	return value("test.fuzzworker") != "true" && (value("test.run") != "^$" || value("test.bench") != "")
}

// Connect returns a client session to a server made by newServer, over
// transport ("memory" or "http") on era ("modern" or "legacy").
func Connect(t testing.TB, newServer func() *mcp.Server, transport, era string, o Options) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	copts := &mcp.ClientOptions{Capabilities: o.Capabilities}
	if o.User != nil {
		copts.ElicitationHandler = o.User.Handle
		copts.ElicitationCompleteHandler = o.User.HandleComplete
	}
	if o.Manual {
		copts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	impl := o.Client
	if impl == nil {
		impl = &mcp.Implementation{Name: "test", Version: "v0"}
	}
	client := mcp.NewClient(impl, copts)
	var ct mcp.Transport
	if transport == "stdio" {
		if o.Command == nil {
			t.Fatal("stdio transport without a command")
		}
		ct = &mcp.CommandTransport{Command: o.Command()}
	} else {
		ct = Transport(t, newServer(), transport)
	}
	var sopts *mcp.ClientSessionOptions
	if era == "legacy" {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	}
	cs, err := client.Connect(ctx, ct, sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Transport serves server over transport, "memory" (in-memory
// transports) or "http" (streamable HTTP on 127.0.0.1 through
// runtime/serve's dual-era handler, as a deployed server is served), and
// returns the client's end; both end with the test. The public kit's
// scripted client (runtime/elicittest, Options.Transport) connects
// through it too.
func Transport(t testing.TB, server *mcp.Server, transport string) mcp.Transport {
	t.Helper()
	switch transport {
	case "memory":
		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		return ct
	case "http":
		srv := httptest.NewServer(serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
		t.Cleanup(srv.Close)
		return &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: taskNames{}}}
	}
	t.Fatalf("unknown transport %q", transport)
	return nil
}

// taskNames sends each request as a host that speaks the Tasks extension
// does: a tasks/* request over HTTP carries its taskId in the Mcp-Name
// header, which the Go SDK's client sets only for tools, resources and
// prompts.
type taskNames struct{}

func (taskNames) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Method != http.MethodPost {
		return http.DefaultTransport.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			TaskID string `json:"taskId"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) == nil && strings.HasPrefix(msg.Method, "tasks/") && msg.Params.TaskID != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Mcp-Name", msg.Params.TaskID)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	return http.DefaultTransport.RoundTrip(req)
}

// Text returns the single text content of a result, or "" if it has none.
func Text(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) != 1 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// OnlyKey returns the key of an input_required result's single input
// request, failing the test unless there is exactly one and a state.
func OnlyKey(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if res == nil || !res.NeedsInput() || len(res.InputRequests) != 1 || res.RequestState == "" {
		t.Fatalf("want one input request and a state, got %+v", res)
	}
	for k := range res.InputRequests {
		return k
	}
	return ""
}
