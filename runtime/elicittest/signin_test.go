package elicittest_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
	"github.com/elicitgen/elicitgen/runtime/elicittest"
)

// A tool with one URL step, account, written by hand as generated code
// would write it: its link is https://connect.example/start?flow=TOKEN;
// it says whose grant it found, or "declined" / "cancelled".

var account = elicittest.Key("account")

type noArgs struct{}

type connectAnswers struct{ Account *elicitrt.URLStep }

type connectStep int

func connectServer(opts *elicitrt.ToolOptions) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "connect", Version: "v0"}, nil)
	m := elicitimpl.NewMachine("connect", []elicitimpl.Step{{Key: "account", Message: "Connect your account.", Mode: elicitimpl.ModeURL}},
		elicitimpl.Typed[noArgs, connectAnswers, connectStep]{
			Answers: func(a elicitimpl.Answers) connectAnswers {
				return connectAnswers{Account: elicitimpl.URLAnswer(a[0])}
			},
			Complete:  connected(opts.Grants),
			Declined:  ended("declined"),
			Cancelled: ended("cancelled"),
			Links:     map[connectStep]func(context.Context, *mcp.CallToolRequest, noArgs, connectAnswers, string) string{0: connectLink},
		}.Flow(), opts)
	elicitimpl.AddTool[noArgs](server, &mcp.Tool{Name: "connect", InputSchema: map[string]any{"type": "object"}}, m)
	return server
}

// connected says whose grant the call found in store.
func connected(store backend.GrantStore) func(context.Context, *mcp.CallToolRequest, noArgs, connectAnswers) (*mcp.CallToolResult, error) {
	return func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs, _ connectAnswers) (*mcp.CallToolResult, error) {
		who := elicitrt.PrincipalFrom(ctx)
		grant, _, err := store.Grant(ctx, who, "account")
		return elicitrt.Text(who + ": " + string(grant)), err
	}
}

func ended(text string) func(context.Context, *mcp.CallToolRequest, noArgs, connectAnswers, connectStep) (*mcp.CallToolResult, error) {
	return func(context.Context, *mcp.CallToolRequest, noArgs, connectAnswers, connectStep) (*mcp.CallToolResult, error) {
		return elicitrt.Text(text), nil
	}
}

func connectLink(_ context.Context, _ *mcp.CallToolRequest, _ noArgs, _ connectAnswers, token string) string {
	return "https://connect.example/start?flow=" + url.QueryEscape(token)
}

// TestSignIn: the kit finishes the sign-in for the principal with the
// grant the step names, on both eras; a denied one and a declined one
// take the decline path.
func TestSignIn(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			c := elicittest.Start(t, connectServer, &elicittest.Options{Era: era, Principal: "ada"})
			c.Call("connect", nil, elicittest.SignIn(account).Grant([]byte("token-1")).Message("Connect your account.")).
				WantText(t, "ada: token-1")
			c.Call("connect", nil, elicittest.DenySignIn(account)).WantText(t, "declined")
			c.Call("connect", nil, elicittest.Decline(account)).WantText(t, "declined")
			c.Call("connect", nil, elicittest.SignIn(account)).WantText(t, "ada: "+string(elicittest.DefaultGrant))
		})
	}
}

// TestSignInTheTestsStore: the kit finishes the sign-in in the grant
// store and for the principal the test gave the server.
func TestSignInTheTestsStore(t *testing.T) {
	store := &backend.MemoryGrants{}
	tool := &elicitrt.ToolOptions{Grants: store, Principal: func(*mcp.CallToolRequest) string { return "grace" }}
	c := elicittest.Start(t, connectServer, &elicittest.Options{Tool: tool})
	c.Call("connect", nil, elicittest.SignIn(account)).WantText(t, "grace: "+string(elicittest.DefaultGrant))
	if _, ok, _ := store.Grant(t.Context(), "grace", "account"); !ok {
		t.Error("the test's store has no grant for grace")
	}
}

// TestSignInUnfinished: accepted without a sign-in, the step is asked
// again with the same link (2026-07-28), or the call ends unfinished
// (2025-11-25) and Client.SignIn finishes the sign-in of its link.
func TestSignInUnfinished(t *testing.T) {
	c := elicittest.Start(t, connectServer, nil)
	out := c.Call("connect", nil, elicittest.Accept(account, nil), elicittest.SignIn(account))
	if len(out.Questions) != 2 || out.Questions[1].Key != "account.2" || out.Questions[1].URL != out.Questions[0].URL {
		t.Errorf("questions %v, want account, then account.2 with the same link", out.Questions)
	}
	out.WantText(t, elicittest.DefaultPrincipal+": "+string(elicittest.DefaultGrant))

	store := &backend.MemoryGrants{}
	legacy := elicittest.Start(t, connectServer, &elicittest.Options{Era: elicittest.Legacy, Tool: &elicitrt.ToolOptions{Grants: store}})
	out = legacy.Call("connect", nil, elicittest.Accept(account, nil))
	out.WantText(t, "The step in the browser has not finished yet: finish it, then ask again.")
	if _, ok, _ := store.Grant(t.Context(), elicittest.DefaultPrincipal, "account"); ok {
		t.Error("a grant before the sign-in")
	}
	legacy.SignIn(out.Questions[0].URL)
	if _, ok, _ := store.Grant(t.Context(), elicittest.DefaultPrincipal, "account"); !ok {
		t.Error("no grant after Client.SignIn")
	}
}
