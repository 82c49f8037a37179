package runtime

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"time"
)

// ConnectFlow is one URL-mode flow, as the flow token carries it.
type ConnectFlow struct {
	// ID is the flow's random identifier, also kept in the sealed
	// requestState of the tool call that started it.
	ID string `json:"f"`
	// Subject is the principal of the tool call that started the flow: the
	// only user who may complete it.
	Subject string `json:"s"`
	// Tool and Step name the tool and its URL step (the step key is also
	// the name the grant is stored under).
	Tool string `json:"t"`
	Step string `json:"k"`
}

// flowBinding is the binding of flow tokens under audience: they never
// open as a requestState, nor a requestState as a flow token, nor a token
// of one audience under another.
func flowBinding(audience string) Binding {
	return Binding{Tool: "elicitgen/connect-flow", Audience: audience}
}

// MaxFlowTokenLen bounds a flow token read from a URL.
const MaxFlowTokenLen = 2048

// newFlowID returns 128 random bits, base64url.
func newFlowID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// SealFlow makes the opaque flow token of f for audience (the
// ToolOptions.Audience of the tool, the ConnectOptions.Audience of its
// pages), valid for ttl: encrypted and authenticated with the keyring, so
// it carries no readable data and cannot be altered.
func (k *Keyring) SealFlow(f ConnectFlow, audience string, now time.Time, ttl time.Duration) (string, error) {
	payload, err := json.Marshal(f) // only strings
	if err != nil {
		return "", err
	}
	return k.Seal(flowBinding(audience), 0, payload, now, ttl)
}

// OpenFlow opens a flow token sealed for audience. Any failure (tampered,
// truncated, expired, another key or audience, not a flow token) is
// ErrInvalidFlowToken.
func (k *Keyring) OpenFlow(token, audience string, now time.Time) (ConnectFlow, error) {
	var f ConnectFlow
	if len(token) > MaxFlowTokenLen {
		return f, ErrInvalidFlowToken
	}
	_, payload, err := k.Open(flowBinding(audience), token, now)
	if err != nil {
		return f, ErrInvalidFlowToken
	}
	if err := json.Unmarshal(payload, &f); err != nil || f.ID == "" {
		return ConnectFlow{}, ErrInvalidFlowToken
	}
	return f, nil
}

// ErrInvalidFlowToken is the one error of OpenFlow.
var ErrInvalidFlowToken = errors.New("invalid or expired flow token")

// ConnectOptions configure the connect page and the callback of URL steps.
type ConnectOptions struct {
	// Keys open flow tokens: the same keyring as the tools' (nil: the
	// DefaultKeyring).
	Keys *Keyring
	// Audience is the tools' ToolOptions.Audience: flow tokens sealed under
	// another audience do not open.
	Audience string
	// Grants records completed flows and grants (nil: DefaultGrants); the
	// same store as the tools'.
	Grants GrantStore
	// Authenticate says who the browser user is, from the request (for
	// example a session cookie of your site): the subject as your MCP
	// authorization knows it. ok false means nobody is signed in.
	Authenticate func(r *http.Request) (subject string, ok bool)
	// AuthorizeURL returns where the connect page sends the user: the third
	// party's authorization URL, carrying state so the callback can find
	// the flow again.
	AuthorizeURL func(r *http.Request, f ConnectFlow, state string) (string, error)
	// Exchange runs in the callback, once the flow and user are verified:
	// it turns the callback request (for example its authorization code)
	// into the grant to store for the user.
	Exchange func(r *http.Request, f ConnectFlow) (grant []byte, err error)
	// GrantTTL is how long a stored grant lasts (0: no expiry); FlowTTL how
	// long a completion record lasts (0: 10 minutes).
	GrantTTL, FlowTTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives the reasons requests are refused; nil means
	// slog.Default().
	Logger *slog.Logger
}

// ConnectHandlers are the two pages of a URL step, on your own server.
type ConnectHandlers struct {
	// Connect serves the link the tool sends (?flow=TOKEN): it verifies the
	// token, checks that the signed-in browser user is the user who started
	// the flow, and only then redirects to the third party. Anyone else
	// gets 403 and nothing is stored.
	Connect http.Handler
	// Callback serves the third party's redirect (?state=TOKEN&...): it
	// verifies the flow and the user again, lets Exchange make the grant,
	// stores it for that user and marks the flow complete.
	Callback http.Handler
}

// NewConnectHandlers returns the connect page and the callback.
func NewConnectHandlers(opts ConnectOptions) ConnectHandlers {
	if opts.Keys == nil {
		opts.Keys = DefaultKeyring()
	}
	if opts.Grants == nil {
		opts.Grants = DefaultGrants()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.FlowTTL == 0 {
		opts.FlowTTL = DefaultStateTTL
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	c := &connect{opts: opts}
	return ConnectHandlers{Connect: http.HandlerFunc(c.serveConnect), Callback: http.HandlerFunc(c.serveCallback)}
}

type connect struct{ opts ConnectOptions }

// verify opens the token and checks the browser user; on failure it has
// written the response.
func (c *connect) verify(w http.ResponseWriter, r *http.Request, token string) (ConnectFlow, bool) {
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return ConnectFlow{}, false
	}
	f, err := c.opts.Keys.OpenFlow(token, c.opts.Audience, c.opts.Now())
	if err != nil {
		c.opts.Logger.Info("elicitgen: connect: flow token refused", "path", r.URL.Path)
		http.Error(w, "This link is invalid or has expired. Start again from your assistant.", http.StatusBadRequest)
		return ConnectFlow{}, false
	}
	subject, ok := "", false
	if c.opts.Authenticate != nil {
		subject, ok = c.opts.Authenticate(r)
	}
	if !ok || subject == "" || subject != f.Subject {
		c.opts.Logger.Warn("elicitgen: connect: browser user is not the user who started the flow", "tool", f.Tool, "step", f.Step, "signed_in", ok)
		http.Error(w, "This link was made for another user. Sign in as the user who asked, or start again from your assistant.", http.StatusForbidden)
		return ConnectFlow{}, false
	}
	return f, true
}

func (c *connect) serveConnect(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("flow")
	f, ok := c.verify(w, r, token)
	if !ok {
		return
	}
	target, err := c.opts.AuthorizeURL(r, f, token)
	if err != nil {
		http.Error(w, "cannot start the sign-in", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, target, http.StatusFound)
}

func (c *connect) serveCallback(w http.ResponseWriter, r *http.Request) {
	f, ok := c.verify(w, r, r.URL.Query().Get("state"))
	if !ok {
		return
	}
	grant, err := c.opts.Exchange(r, f)
	if err != nil {
		c.opts.Logger.Info("elicitgen: connect: exchange failed", "tool", f.Tool, "err", err)
		http.Error(w, "The sign-in did not complete.", http.StatusBadGateway)
		return
	}
	ctx := r.Context()
	if err := c.opts.Grants.PutGrant(ctx, f.Subject, f.Step, grant, c.opts.GrantTTL); err != nil {
		http.Error(w, "cannot store the grant", http.StatusInternalServerError)
		return
	}
	if err := c.opts.Grants.CompleteFlow(ctx, f.ID, f.Subject, c.opts.FlowTTL); err != nil {
		http.Error(w, "cannot record the sign-in", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintf(w, "<!doctype html><title>Connected</title><p>Connected. Return to your assistant: %s can go on.</p>\n", html.EscapeString(f.Tool))
}
