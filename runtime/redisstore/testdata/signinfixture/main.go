// Command signinfixture is the server of runtime/redisstore's sign-in
// tests across instances (signin_instances_test.go): one tool,
// list_invoices, written by hand on runtime/elicitimpl as elicitgen would
// generate it (one URL step, asked while the user has no grant), the
// pages of runtime/signin, and the wiring of a server on many instances:
// redisstore.Grants and the replay guard on Redis. The tests build it
// with hosttest.BuildBinary.
//
//	signinfixture -http 127.0.0.1:PORT -provider URL -principal USER [-redis URL]
//	signinfixture -stdio -base URL -provider URL -principal USER [-redis URL] [-legacy-url-wait D]
//
// Over HTTP it serves MCP at /mcp, the sign-in pages at /connect and
// /callback, and a stand-in site login at /login (a POST of user=NAME
// sets a cookie naming NAME), and its first line on stdout is the address
// it listens on; the links point at it. Over stdio the links point at
// -base, the pages of an -http process. The provider is the test's: its
// consent page is PROVIDER/authorize, and Exchange redeems the code at
// PROVIDER/token. -principal names the user of every call.
// ELICITGEN_STATE_KEYS holds the keys; -redis or ELICITGEN_REDIS_URL keeps
// the grants and the replay guard in Redis, else in this process's
// memory. A bad setting stops it with one line on stderr, exit status 1.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
	"github.com/elicitgen/elicitgen/runtime/redisstore"
	"github.com/elicitgen/elicitgen/runtime/serve"
	"github.com/elicitgen/elicitgen/runtime/signin"
)

// settings are the command line.
type settings struct {
	addr, base, provider, redisURL, principal string
	stdio                                     bool
	legacyWait                                time.Duration
}

func main() {
	var s settings
	flag.StringVar(&s.addr, "http", "", "serve MCP and the sign-in pages at this address")
	flag.BoolVar(&s.stdio, "stdio", false, "serve MCP on standard input and output")
	flag.StringVar(&s.base, "base", "", "with -stdio: the base URL of the sign-in pages")
	flag.StringVar(&s.provider, "provider", "", "the provider's base URL")
	flag.StringVar(&s.redisURL, "redis", "", "keep the grants and the replay guard in this Redis (default $"+redisstore.URLEnv+")")
	flag.StringVar(&s.principal, "principal", "", "the user of every call")
	flag.DurationVar(&s.legacyWait, "legacy-url-wait", 0, "how long a 2025-11-25 call waits for the sign-in")
	flag.Parse()
	if err := run(s); err != nil {
		fmt.Fprintf(os.Stderr, "signinfixture: %v\n", err)
		os.Exit(1)
	}
}

// run serves list_invoices until the process is killed, or stdin ends.
func run(s settings) error {
	if s.stdio == (s.addr != "") || s.provider == "" || s.principal == "" {
		return errors.New("want -http ADDR or -stdio, and -provider and -principal")
	}
	keys, err := elicitrt.LoadKeyring()
	if err != nil {
		return err
	}
	opts := &elicitrt.ToolOptions{Keys: keys, LegacyURLWait: s.legacyWait,
		Principal: func(*mcp.CallToolRequest) string { return s.principal }}
	if err := shareOnRedis(s.redisURL, opts); err != nil {
		return err
	}
	if s.stdio {
		server := listInvoices(s.base, opts)
		return server.Run(context.Background(), &serve.StdioTransport{Server: server})
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	server := listInvoices(base, opts)
	mux := signInPages(base, s.provider, opts)
	mux.Handle("/mcp", serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	fmt.Println(ln.Addr()) // the port of 127.0.0.1:0, for the tests
	return serve.NewHTTPServer(s.addr, mux).Serve(ln)
}

// shareOnRedis puts the grants and the replay guard of opts on the Redis
// of redisURL, or, with none set, in this process's memory.
func shareOnRedis(redisURL string, opts *elicitrt.ToolOptions) error {
	client, err := redisstore.ClientFromSettings(redisURL, nil)
	if err != nil {
		return err
	}
	if client == nil {
		opts.Grants = &backend.MemoryGrants{}
		return nil
	}
	grants, err := redisstore.NewGrants(client, &redisstore.Options{Keys: opts.Keys})
	if err != nil {
		return err
	}
	opts.Grants, opts.Replay = grants, redisstore.NewReplayGuard(client, nil)
	return nil
}

// What list_invoices says.
const (
	invoicesRead = "2 open invoices."
	notConnected = "The billing account isn't connected, so no invoices were read."
)

// noArgs: list_invoices takes no arguments.
type noArgs struct{}

// listInvoices is a server with list_invoices, whose link is the connect
// page under base.
func listInvoices(base string, opts *elicitrt.ToolOptions) *mcp.Server {
	connected := func(ctx context.Context) (bool, error) {
		grant, ok, err := opts.Grants.Grant(ctx, elicitrt.PrincipalFrom(ctx), "billing")
		return ok && len(grant) > 0, err
	}
	m := elicitimpl.NewMachine("list_invoices", []elicitimpl.Step{{
		Key: "billing", Digest: "signinfixture-billing-1", Mode: elicitimpl.ModeURL, Fallback: elicitimpl.FallbackLink,
		Message: "Open this link to connect your billing account.",
	}}, elicitimpl.Flow{
		Ask: func(ctx context.Context, _ *mcp.CallToolRequest, _ any, _ int, _ elicitimpl.Answers) bool {
			ok, err := connected(ctx)
			return err != nil || !ok
		},
		Link: func(_ context.Context, _ *mcp.CallToolRequest, _ any, _ int, _ elicitimpl.Answers, token string) string {
			return base + "/connect?flow=" + url.QueryEscape(token)
		},
		Complete: func(ctx context.Context, _ *mcp.CallToolRequest, _ any, _ elicitimpl.Answers) (*mcp.CallToolResult, error) {
			ok, err := connected(ctx)
			if err != nil {
				return nil, err
			}
			if !ok {
				return elicitrt.Text(notConnected), nil
			}
			return elicitrt.Text(invoicesRead), nil
		},
		Ended: func(context.Context, *mcp.CallToolRequest, any, int, string, elicitimpl.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text(notConnected), nil
		},
	}, opts)
	server := mcp.NewServer(&mcp.Implementation{Name: "signinfixture", Version: "v0"}, nil)
	elicitimpl.AddTool[noArgs](server, &mcp.Tool{Name: "list_invoices", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, m)
	return server
}

// siteCookie is the stand-in site session: the user it names.
const siteCookie = "fixture_user"

// signInPages serves the sign-in pages of base, on the grants and keys of
// opts, with provider's authorization and token endpoints, and the
// stand-in login.
func signInPages(base, provider string, opts *elicitrt.ToolOptions) *http.ServeMux {
	callback := base + "/callback"
	pages := signin.NewConnectHandlers(signin.ConnectOptions{
		Keys: opts.Keys, Grants: opts.Grants, ProviderAnswer: signin.OAuthAnswer,
		Authenticate: func(r *http.Request) (string, bool) {
			c, err := r.Cookie(siteCookie)
			if err != nil || c.Value == "" {
				return "", false
			}
			return c.Value, true
		},
		AuthorizeURL: func(_ *http.Request, _ signin.ConnectFlow, state string) (string, error) {
			return provider + "/authorize?" + url.Values{"state": {state}, "redirect_uri": {callback}}.Encode(), nil
		},
		Exchange: func(r *http.Request, _ signin.ConnectFlow) ([]byte, error) {
			return redeem(r.Context(), provider, r.URL.Query().Get("code"))
		},
	})
	mux := http.NewServeMux()
	mux.Handle("/connect", pages.Connect)
	mux.Handle("/callback", pages.Callback)
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		user := r.PostFormValue("user")
		if user == "" || strings.ContainsAny(user, ";, \"") {
			http.Error(w, "name a user", http.StatusBadRequest)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: siteCookie, Value: user, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
		_, _ = io.WriteString(w, "signed in\n")
	})
	return mux
}

// redeem posts code to the provider's token endpoint: the grant is its
// answer.
func redeem(ctx context.Context, provider, code string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, provider+"/token", strings.NewReader(url.Values{"code": {code}}.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	grant, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil || resp.StatusCode != http.StatusOK || len(grant) == 0 {
		return nil, fmt.Errorf("the provider refused the code: %d %v", resp.StatusCode, err)
	}
	return grant, nil
}
