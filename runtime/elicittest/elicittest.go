package elicittest

import (
	"context"
	"crypto/rand"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// Era is a protocol revision the client speaks.
type Era string

const (
	// Modern is 2026-07-28: a tool asks by returning input_required, and
	// the client retries with inputResponses and requestState.
	Modern Era = "2026-07-28"
	// Legacy is 2025-11-25: the server asks with elicitation/create
	// requests inside the call.
	Legacy Era = "2025-11-25"
)

// Eras are both eras, for a test that runs on each.
var Eras = []Era{Modern, Legacy}

// String returns the protocol revision.
func (e Era) String() string { return string(e) }

// Epoch is the kit's default clock: the time the server reads unless
// Options.Now says otherwise.
var Epoch = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// DefaultLegacyAnswerWait is the ToolOptions.LegacyAnswerWait the kit
// gives a server unless Options.Tool sets one: how long a 2025-11-25
// question that the script ignores waits before the server gives up.
const DefaultLegacyAnswerWait = 2 * time.Second

// Options configure a Client. The zero value is usable.
type Options struct {
	// Era is the protocol revision of the client; empty means Modern.
	Era Era
	// Now is the clock given to the server (ToolOptions.Now) and to its
	// replay guard; nil means a clock stopped at Epoch.
	Now func() time.Time
	// Capabilities are the client's capabilities; nil declares form and
	// URL elicitation. Elicitation nil in them declares none.
	Capabilities *mcp.ClientCapabilities
	// Tool holds ToolOptions to give the server: the kit fills Keys, Now,
	// Replay, Grants and Tasks (memory stores on the clock), Principal,
	// Logger (one writing to t.Log), LegacyAnswerWait and LegacyURLWait
	// (DefaultLegacyURLWait) where they are zero, and wraps Hooks,
	// Principal and Tasks (to record each task's progress). The kit finishes sign-ins
	// with the Keys, Grants, Audience and TTL given to the server.
	Tool *elicitrt.ToolOptions
	// Principal is the user the server's requests act for, when
	// Options.Tool sets no Principal; empty means DefaultPrincipal.
	Principal string
	// Client names the client in initialize; nil means elicittest v0.
	Client *mcp.Implementation
	// Tasks declares the Tasks extension (io.modelcontextprotocol/tasks)
	// on 2026-07-28: a task tool then runs as a task, which Call follows
	// with tasks/get and answers with tasks/update. Without it, an
	// optional task tool runs in the foreground. 2025-11-25 clients never
	// get tasks: there it changes nothing.
	Tasks bool
	// Transport is how the client reaches the server: "memory" (in-memory
	// transports, the default when empty) or "http" (streamable HTTP on
	// 127.0.0.1 through runtime/serve's dual-era handler, as a deployed
	// server is served: the same script then proves the conversation over
	// the wire). See hosttest.Transport.
	Transport string
	// TaskWait bounds how long Call follows a task (real time, not the
	// clock's) before it fails the test and cancels the task; 0 means
	// DefaultTaskWait.
	TaskWait time.Duration
}

// NoElicitation returns capabilities without elicitation: the server's
// fallbacks run instead of its questions.
func NoElicitation() *mcp.ClientCapabilities { return &mcp.ClientCapabilities{} }

// Client is one client connected in memory to one server, playing
// scripts. It runs one request at a time.
type Client struct {
	t        testing.TB
	era      Era
	session  *mcp.ClientSession
	hooks    *keyHooks
	wait     time.Duration // the server's LegacyAnswerWait
	signer   *signer
	mu       sync.Mutex
	user     string                // the principal of the last request
	person   *person               // the running call's script (2025-11-25)
	last     func(*Outcome) *round // the last retry sent (2026-07-28)
	wire     *wire                 // tools/call and tasks/* with the Tasks extension
	taskWait time.Duration
	tasks    *taskLog // the server's task store, as the kit wraps it
	// transport is Options.Transport, "memory" when it is empty.
	transport string
}

// Start builds a server with newServer, given the ToolOptions that o and
// the kit make, and connects a client to it in memory on o.Era; both end
// with the test. o may be nil.
func Start(t testing.TB, newServer func(*elicitrt.ToolOptions) *mcp.Server, o *Options) *Client {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	c := &Client{t: t, era: o.Era, hooks: &keyHooks{}, taskWait: o.TaskWait, transport: o.Transport}
	if c.transport == "" {
		c.transport = "memory"
	}
	if c.taskWait <= 0 {
		c.taskWait = DefaultTaskWait
	}
	if c.era == "" {
		c.era = Modern
	}
	server := newServer(c.toolOptions(o))
	copts := c.clientOptions(o)
	if o.Tasks && c.era == Modern {
		c.wire = dialWire(t, hosttest.Transport(t, server, c.transport), copts.Capabilities, c.implementation(o))
	}
	c.session = c.connect(server, mcp.NewClient(c.implementation(o), copts))
	return c
}

// connect connects client to server over the client's transport, until
// the test ends.
func (c *Client) connect(server *mcp.Server, client *mcp.Client) *mcp.ClientSession {
	ct := hosttest.Transport(c.t, server, c.transport)
	client.AddReceivingMiddleware(keepRaw)
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: string(c.era)})
	if err != nil {
		c.t.Fatalf("elicittest: client: %v", err)
	}
	c.t.Cleanup(func() { cs.Close() })
	return cs
}

// Era returns the client's protocol revision.
func (c *Client) Era() Era { return c.era }

// Session returns the client's SDK session, for what the kit does not do.
func (c *Client) Session() *mcp.ClientSession { return c.session }

// toolOptions returns a copy of o.Tool with the kit's defaults.
func (c *Client) toolOptions(o *Options) *elicitrt.ToolOptions {
	opts := elicitrt.ToolOptions{}
	if o.Tool != nil {
		opts = *o.Tool
	}
	now := o.Now
	if now == nil {
		now = func() time.Time { return Epoch }
	}
	if opts.Now == nil {
		opts.Now = now
	}
	if opts.Keys == nil {
		opts.Keys = randomKeys(c.t)
	}
	memoryStores(&opts)
	c.tasks = &taskLog{TaskStore: opts.Tasks}
	opts.Tasks = c.tasks
	if opts.Logger == nil {
		opts.Logger = testLogger(c.t)
	}
	if opts.LegacyAnswerWait == 0 {
		opts.LegacyAnswerWait = DefaultLegacyAnswerWait
	}
	if opts.LegacyURLWait == 0 {
		opts.LegacyURLWait = DefaultLegacyURLWait
	}
	opts.Principal = c.principal(opts.Principal, o.Principal)
	c.wait = opts.LegacyAnswerWait
	c.hooks.next = opts.Hooks
	opts.Hooks = c.hooks
	c.signer = newSigner(&opts)
	return &opts
}

// memoryStores gives opts the stores it lacks, in memory, on its clock.
func memoryStores(opts *elicitrt.ToolOptions) {
	if opts.Replay == nil {
		opts.Replay = &backend.MemoryReplayGuard{Now: opts.Now}
	}
	if opts.Grants == nil {
		opts.Grants = &backend.MemoryGrants{Now: opts.Now}
	}
	if opts.Tasks == nil {
		opts.Tasks = &backend.MemoryTaskStore{Now: opts.Now}
	}
}

// principal returns the server's Principal: next (the test's), else one
// naming user (DefaultPrincipal when empty), which keeps the principal of
// each request for the sign-ins.
func (c *Client) principal(next func(*mcp.CallToolRequest) string, user string) func(*mcp.CallToolRequest) string {
	if user == "" {
		user = DefaultPrincipal
	}
	if next == nil {
		next = func(*mcp.CallToolRequest) string { return user }
	}
	c.user = user
	return func(req *mcp.CallToolRequest) string {
		p := next(req)
		c.mu.Lock()
		c.user = p
		c.mu.Unlock()
		return p
	}
}

// principalNow returns the principal of the last request.
func (c *Client) principalNow() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.user
}

func (c *Client) implementation(o *Options) *mcp.Implementation {
	if o.Client != nil {
		return o.Client
	}
	return &mcp.Implementation{Name: "elicittest", Version: "v0"}
}

// clientOptions declares o's capabilities; the kit runs the 2026-07-28
// rounds itself, so that it sees each input key.
func (c *Client) clientOptions(o *Options) *mcp.ClientOptions {
	copts := &mcp.ClientOptions{
		Capabilities:   o.Capabilities,
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}
	if o.Capabilities == nil {
		copts.Capabilities = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
			Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
	}
	if copts.Capabilities.Elicitation != nil {
		copts.ElicitationHandler = c.elicit
	}
	return copts
}

// randomKeys returns a key ring of one random key.
func randomKeys(t testing.TB) *elicitrt.Keyring {
	key := make([]byte, 32)
	rand.Read(key)
	keys, err := elicitrt.NewKeyring(key)
	if err != nil {
		t.Fatalf("elicittest: key ring: %v", err)
	}
	return keys
}
