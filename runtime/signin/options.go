package signin

import (
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/elicitgen/elicitgen/internal/refuse"
	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/templates"
)

// ConnectOptions configure the connect page and the callback of URL steps.
type ConnectOptions struct {
	// Keys open flow tokens and seal the sign-in's state and nonce cookie:
	// the same keyring as the tools' (nil: the process's key ring, the
	// one elicitrt.LoadKeyring returns).
	Keys *elicitrt.Keyring
	// Audience is the tools' ToolOptions.Audience: flow tokens, sign-in
	// states and nonce cookies sealed under another audience do not open.
	Audience string
	// Grants records finished flows and grants (nil: backend.DefaultGrants()); the
	// same store as the tools'.
	Grants backend.GrantStore
	// Authenticate says who the browser user is, from the request (for
	// example a session cookie of your site): the subject as your MCP
	// authorization knows it. ok false means nobody is signed in.
	Authenticate func(r *http.Request) (subject string, ok bool)
	// AuthorizeURL returns where the connect page sends the user: the third
	// party's authorization URL, carrying state (an opaque sealed value,
	// bound to the flow and to the nonce cookie of this browser) so that
	// the callback can find the flow again. Its redirect URI is the
	// callback.
	AuthorizeURL func(r *http.Request, f ConnectFlow, state string) (string, error)
	// ProviderAnswer reads the third party's answer from the callback
	// request, once the flow, the user and the browser are verified and
	// before anything is exchanged; nil means OAuthAnswer (the error
	// parameter of an OAuth 2.0 authorization response). A denial ends the
	// flow as declined.
	ProviderAnswer func(r *http.Request) ProviderAnswer
	// Exchange runs in the callback, once the flow, the user, the browser
	// and the single completion are verified and the third party approved:
	// it turns the callback request (for example its authorization code)
	// into the grant to store for the user. It runs for one callback of a
	// flow at a time, and never again once it succeeded. Its error is the
	// third party's failure: the person is offered to start again.
	Exchange func(r *http.Request, f ConnectFlow) (grant []byte, err error)
	// GrantTTL is how long a stored grant lasts (0: no expiry). FlowTTL
	// (0 or less: 10 minutes) is how long a sign-in started at the connect page
	// may take, and how long the record of a finished flow, the claim of a
	// flow and its result page last: keep it at least the tools'
	// ToolOptions.TTL, the life of a flow token, so that a flow cannot
	// finish again once its record has expired.
	GrantTTL, FlowTTL time.Duration
	// Secure says the pages are served over HTTPS even when the request
	// does not show it (TLS ends at a proxy that sets no
	// X-Forwarded-Proto): the nonce cookie is then always the Secure
	// NonceCookieSecure. Without it, a request over TLS or with
	// X-Forwarded-Proto: https gets NonceCookieSecure, any other
	// NonceCookie.
	Secure bool

	// The pages a person sees (see docs/reference/signin.md).

	// ServiceName names your service on the pages, e.g. "Billing
	// assistant"; "" means the request's host.
	ServiceName string
	// ProviderName names the third party, e.g. "Acme Billing"; "" means
	// "the provider".
	ProviderName string
	// AccountName is how the pages show the account a browser is signed in
	// with (its e-mail address, say), from the subject Authenticate
	// returned; nil shows the subject.
	AccountName func(r *http.Request, subject string) string
	// Lang is the pages' language (the lang attribute of <html>); "" means
	// "en".
	Lang string
	// Pages are the page templates, read with templates.SignInData; nil
	// means templates.SignIn(). To brand the pages, Parse into a set of
	// templates.SignIn() a definition of "signin-style", "signin-brand" or
	// a whole page. The set
	// must define every name of templates.SignInPages: NewConnectHandlers
	// panics otherwise. Pages run no script and load nothing: their
	// Content-Security-Policy allows only the <style> element carrying
	// .Nonce.
	Pages *template.Template
	// LoginURL is your site's sign-in page. A person who opens a link
	// while nobody is signed in is sent there (303 See Other) with
	// LoginReturnParam set to the path and query of the link, so that your
	// login page brings them back to it once signed in; check that return
	// address with SameOriginPath before you redirect to it. "" shows
	// templates.PageSignedOut instead (401).
	LoginURL string
	// LoginReturnParam names the query parameter of LoginURL that carries
	// the return address; "" means "return_to".
	LoginReturnParam string
	// SignOutURL is your site's sign-out page, offered to a person signed
	// in as another account than the link's; "" offers none. Its link
	// carries the way back to the flow in LoginReturnParam: the connect
	// link's path and query (a path of this site, SameOriginPath). Once
	// it has signed the browser out, your sign-out page redirects there,
	// if SameOriginPath accepts it, so that the link sends the person to
	// LoginURL and back.
	SignOutURL string
	// Confirm shows templates.PageConfirm ("Continue to PROVIDER", as the
	// signed-in account) before the connect page sends the person to the
	// third party; without it the connect page redirects at once.
	Confirm bool

	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives the reasons requests are refused; nil means
	// slog.Default().
	Logger *slog.Logger
}

// ConnectHandlers are the two pages of a URL step, on your own server.
//
// A sign-in finishes once, in the browser that started it. The connect
// page adds a fresh random nonce, with the flow id, to an HttpOnly,
// SameSite=Lax sealed cookie that holds the browser's latest
// MaxSignInsPerBrowser sign-ins, and passes the third party a sealed
// state that carries the flow and the nonce's SHA-256; the callback
// finishes the flow only for the browser whose cookie holds that nonce,
// claims the flow in the backend.GrantStore before Exchange runs, so that a
// replayed or reloaded callback never exchanges again, takes its nonce
// out of the cookie (deleting the cookie once none is left) and
// redirects (303) to the flow's result page, which a reload shows again
// without exchanging anything. What the person sees are the pages of
// ConnectOptions.Pages, branded with the options' names. Every response
// is sent with Cache-Control: no-store, Referrer-Policy: no-referrer,
// X-Content-Type-Options: nosniff, and may not be framed (X-Frame-Options:
// DENY, CSP frame-ancestors 'none'). See docs/reference/signin.md.
type ConnectHandlers struct {
	// Connect serves the link the tool sends (?flow=TOKEN): it verifies the
	// token, checks that the signed-in browser user is the user who started
	// the flow (nobody signed in: to LoginURL and back; another user:
	// 403), optionally asks to continue (Confirm), sets the nonce cookie
	// and only then redirects to the third party. Nothing is stored.
	Connect http.Handler
	// Callback serves the third party's redirect (?state=STATE&...): it
	// verifies the state, the user again and the nonce cookie, claims the
	// flow, reads the third party's answer (ProviderAnswer), lets Exchange
	// make the grant, stores it for that user and marks the flow complete,
	// or records the person's denial; then it redirects to the result
	// page it also serves (?done=...): connected (200) or denied (403).
	Callback http.Handler
}

// NewConnectHandlers returns the connect page and the callback. It panics
// when opts.Pages lacks one of templates.SignInPages.
func NewConnectHandlers(opts ConnectOptions) ConnectHandlers {
	if opts.Keys == nil {
		opts.Keys = (*elicitrt.Keyring)(seal.DefaultKeyring())
	}
	if opts.Grants == nil {
		opts.Grants = backend.DefaultGrants()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.FlowTTL <= 0 {
		opts.FlowTTL = seal.DefaultStateTTL
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ProviderAnswer == nil {
		opts.ProviderAnswer = OAuthAnswer
	}
	if opts.Pages == nil {
		opts.Pages = templates.SignIn()
	}
	for _, page := range templates.SignInPages {
		if opts.Pages.Lookup(page) == nil {
			// Construction, not a request: a server built with pages that
			// lack one would fail on the first person to reach it.
			panic(fmt.Sprintf("signin.NewConnectHandlers: ConnectOptions.Pages defines no %q page", page))
		}
	}
	if opts.Lang == "" {
		opts.Lang = "en"
	}
	if opts.ProviderName == "" {
		opts.ProviderName = "the provider"
	}
	if opts.LoginReturnParam == "" {
		opts.LoginReturnParam = "return_to"
	}
	c := &connect{opts: opts, refusals: &refuse.Log{Clock: refuse.SystemClock(opts.Now)}}
	return ConnectHandlers{Connect: http.HandlerFunc(c.serveConnect), Callback: http.HandlerFunc(c.serveCallback)}
}

type connect struct {
	opts     ConnectOptions
	refusals *refuse.Log
}
