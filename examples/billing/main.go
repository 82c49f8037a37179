// Command billing is an MCP server with one tool, list_invoices, that needs
// the user's sign-in to a (stand-in) billing provider: a URL-mode step to
// the server's own connect page, which checks that the person in the
// browser is the user who asked before redirecting to the provider.
//
//	billing -http 127.0.0.1:8080   MCP at /mcp, plus /connect, /callback,
//	                               /login and the stand-in provider
//	billing -stdio                 stdio, as BILLING_USER; links point at
//	                               BILLING_BASE_URL. The sign-in pages run
//	                               in an -http process, and this example's
//	                               grant store is per process: a real server
//	                               shares one GrantStore between the two.
//
// Stand-ins, to replace in a real server (see docs/guide/url-steps.md):
//   - MCP authentication: a bearer token is taken as the user id
//     (BILLING_DEMO_AUTH); use your authorization server's verifier;
//   - site login: a POST of /login (GET shows the form) with user=NAME
//     sets a session cookie (the user sealed with the key ring, never the
//     bare name), and returns to the page that sent the browser there
//     (return_to, on this site only); /logout signs out, and returns to
//     the sign-in link the same way; use your own;
//   - the provider: /provider/authorize shows a consent page whose Allow
//     sends the browser back to this server's /callback (the only
//     redirect URI it accepts) with its one code, and whose Deny sends it
//     back with error=access_denied; use the provider's OAuth endpoints.
//
// The sign-in pages are branded with ConnectOptions (service, provider and
// account names; the login and sign-out pages); see docs/reference/signin.md.
//
// ELICITGEN_STATE_KEYS holds the state keys (base64, comma-separated).
// -redis redis://HOST:PORT/DB (or ELICITGEN_REDIS_URL) keeps the sign-in
// records and grants in Redis, shared by every instance and by a -stdio
// process with the -http one serving the pages (docs/guide/many-instances.md).
//
// Telemetry (docs/guide/observability.md), as deploy's: -metrics 127.0.0.1:9464
// serves Prometheus text at /metrics; OTEL_TRACES_EXPORTER=otlp|console|none
// sends traces over OTLP/HTTP or to stderr; -log json logs JSON. Without
// them, no telemetry. The wiring is
// runtime/otelelicit/otelsetup's, which reads the rest of the OTEL_*
// environment too (OTEL_METRICS_EXPORTER, OTEL_SERVICE_NAME).
//
// On SIGTERM or SIGINT the server stops taking connections and lets the
// requests in progress finish for -drain (default 10s), then closes the
// rest (serve.Shutdown; docs/guide/tasks.md#leases-and-shutdown).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/elicitgen/elicitgen/runtime/serve"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/examples/internal/signals"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/otelsetup"
	"github.com/elicitgen/elicitgen/runtime/redisstore"
	"github.com/elicitgen/elicitgen/runtime/signin"
)

// config is what the app needs; tests set it directly.
type config struct {
	base   string // public base URL, e.g. http://127.0.0.1:8080
	keys   *elicitrt.Keyring
	grants backend.GrantStore
	// provider is the base URL of the stand-in provider's pages, when
	// another server serves them (newProvider); "" means this app serves
	// them, under base. A real provider is another site.
	provider string
	// principal overrides the MCP principal (stdio and in-memory use).
	principal func(*mcp.CallToolRequest) string
	// legacyURLWait is how long a 2025-11-25 call waits for the sign-in
	// (0: elicitrt.DefaultLegacyURLWait).
	legacyURLWait time.Duration
	// legacyAnswerWait is how long a 2025-11-25 call waits for an answer
	// (0: elicitrt.DefaultLegacyAnswerWait).
	legacyAnswerWait time.Duration
	// signInPages, when set, edits the options of the sign-in pages before
	// they are made (tests: Confirm, no login page).
	signInPages func(*signin.ConnectOptions)
	// logger and hooks are the server's telemetry (nil: slog's default,
	// none).
	logger *slog.Logger
	hooks  backend.Hooks
}

func newServer(cfg config) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "billing", Version: "v1.0.0"}, nil)
	RegisterListInvoices(server, &invoices{base: cfg.base, grants: cfg.grants},
		&elicitrt.ToolOptions{Keys: cfg.keys, Grants: cfg.grants, Principal: cfg.principal, LegacyURLWait: cfg.legacyURLWait,
			LegacyAnswerWait: cfg.legacyAnswerWait, Logger: cfg.logger, Hooks: cfg.hooks})
	return server
}

const sessionCookie = "billing_session"

// newApp serves MCP at /mcp and the pages of the sign-in flow.
func newApp(cfg config) http.Handler {
	server := newServer(cfg)
	mux := http.NewServeMux()
	// Stand-in MCP authentication: the bearer token is the user id.
	verify := func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		if token == "" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}
	mux.Handle("/mcp", auth.RequireBearerToken(verify, nil)(
		serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))

	site := sessions{keys: cfg.keys}
	provider := cfg.provider // the stand-in provider's site
	if provider == "" {
		provider = cfg.base
	}
	opts := signin.ConnectOptions{
		Keys:         cfg.keys,
		Logger:       cfg.logger,
		Grants:       cfg.grants,
		Authenticate: site.user, // stand-in: a real site verifies its own session

		AuthorizeURL: func(r *http.Request, f signin.ConnectFlow, state string) (string, error) {
			// login_hint (OpenID Connect) tells the provider which account
			// to sign in with; it shows it on the consent page.
			q := url.Values{"state": {state}, "redirect_uri": {cfg.base + "/callback"}, "login_hint": {accountName(f.Subject)}}
			return provider + "/provider/authorize?" + q.Encode(), nil
		},
		Exchange: func(r *http.Request, f signin.ConnectFlow) ([]byte, error) {
			if r.URL.Query().Get("code") != standInCode {
				return nil, errors.New("unknown code")
			}
			return []byte("provider-token-for-" + f.Subject), nil
		},
		// OAuth 2.0's error=access_denied, the person's Deny, ends the
		// flow as declined: the tool's retry answers notConnected. A
		// provider that reports a refusal otherwise reads it here.
		ProviderAnswer: signin.OAuthAnswer,

		// What the person sees: this service, the provider and their
		// account by name, and the site's own login and sign-out pages.
		ServiceName:  serviceName,
		ProviderName: providerName,
		AccountName: func(r *http.Request, subject string) string {
			return accountName(subject) // stand-in: a real site shows the account's e-mail address
		},
		LoginURL:   "/login",  // returns to the link with ?return_to=
		SignOutURL: "/logout", // also with ?return_to=, the link, to sign in again with another account
	}
	if cfg.signInPages != nil {
		cfg.signInPages(&opts)
	}
	pages := signin.NewConnectHandlers(opts)
	mux.Handle("/connect", pages.Connect)
	mux.Handle("/callback", pages.Callback)
	// Stand-in site login.
	mux.Handle("/login", loginPage(cfg.base, provider, site))
	mux.Handle("/logout", logoutPage(cfg.base, site))
	// Stand-in provider, on this server unless it has its own.
	if cfg.provider == "" {
		mux.Handle("/provider/", newProvider(cfg.base+"/callback"))
	}
	return mux
}

func main() {
	stdio := flag.Bool("stdio", false, "serve MCP on standard input and output")
	addr := flag.String("http", "", "serve at this address (MCP at /mcp)")
	redisFlag := flag.String("redis", "", "share the grant store on Redis at this URL, redis://HOST:PORT/DB (default $ELICITGEN_REDIS_URL; none: in memory)")
	telemetry := otelsetup.Config{ServiceName: "billing"}
	telemetry.RegisterFlags(flag.CommandLine)
	drain := signals.Register(flag.CommandLine)
	flag.Parse()
	if !*stdio && *addr == "" {
		fmt.Fprintln(os.Stderr, "usage: billing -http 127.0.0.1:PORT | -stdio")
		os.Exit(2)
	}
	keys, err := elicitrt.LoadKeyring()
	if err != nil {
		fmt.Fprintf(os.Stderr, "billing: %v\n", err)
		os.Exit(1)
	}
	tel, err := otelsetup.Start(context.Background(), &telemetry)
	if err != nil {
		fmt.Fprintf(os.Stderr, "billing: %v\n", err)
		os.Exit(1)
	}
	defer tel.Shutdown(context.Background()) // exports the spans still queued
	var grants backend.GrantStore = &backend.MemoryGrants{}
	// With -redis or ELICITGEN_REDIS_URL, instances (and a -stdio process
	// with the -http one serving the pages) share the sign-ins and grants,
	// sealed with the shared keys.
	client, err := redisstore.ClientFromSettings(*redisFlag, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "billing: %v\n", err)
		os.Exit(1)
	}
	if client != nil {
		if grants, err = redisstore.NewGrants(client, &redisstore.Options{Keys: keys}); err != nil {
			fmt.Fprintf(os.Stderr, "billing: %v\n", err)
			os.Exit(1)
		}
	}
	switch {
	case *stdio:
		user := os.Getenv("BILLING_USER")
		cfg := config{base: os.Getenv("BILLING_BASE_URL"), keys: keys, grants: grants, logger: tel.Logger, hooks: tel.Hooks,
			principal: func(*mcp.CallToolRequest) string { return user }}
		if w := os.Getenv("BILLING_LEGACY_URL_WAIT"); w != "" {
			d, err := time.ParseDuration(w)
			if err != nil {
				log.Fatalf("BILLING_LEGACY_URL_WAIT: %v", err)
			}
			cfg.legacyURLWait = d
		}
		server := newServer(cfg)
		if err := server.Run(context.Background(), &serve.StdioTransport{Server: server}); err != nil {
			log.Fatalf("billing: %v", err)
		}
	default:
		cfg := config{base: "http://" + *addr, keys: keys, grants: grants, logger: tel.Logger, hooks: tel.Hooks}
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			log.Fatalf("billing: %v", err)
		}
		if err := signals.HTTP("billing", ln, newApp(cfg), nil, *drain); err != nil {
			log.Fatalf("billing: %v", err)
		}
	}
}
