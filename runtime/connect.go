package runtime

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"strings"
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
	// Keys open flow tokens and seal the sign-in's state and nonce cookie:
	// the same keyring as the tools' (nil: the DefaultKeyring).
	Keys *Keyring
	// Audience is the tools' ToolOptions.Audience: flow tokens, sign-in
	// states and nonce cookies sealed under another audience do not open.
	Audience string
	// Grants records completed flows and grants (nil: DefaultGrants); the
	// same store as the tools'.
	Grants GrantStore
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
	// Exchange runs in the callback, once the flow, the user, the browser
	// and the single completion are verified: it turns the callback
	// request (for example its authorization code) into the grant to store
	// for the user. It runs for one callback of a flow at a time, and never
	// again once it succeeded.
	Exchange func(r *http.Request, f ConnectFlow) (grant []byte, err error)
	// GrantTTL is how long a stored grant lasts (0: no expiry). FlowTTL
	// (0 or less: 10 minutes) is how long a sign-in started at the connect page
	// may take, and how long the completion record and the claim of a
	// flow last: keep it at least the tools' ToolOptions.TTL, the life of
	// a flow token, so that a flow cannot complete again once its record
	// has expired.
	GrantTTL, FlowTTL time.Duration
	// Secure says the pages are served over HTTPS even when the request
	// does not show it (TLS ends at a proxy that sets no
	// X-Forwarded-Proto): the nonce cookie is then always the Secure
	// NonceCookieSecure. Without it, a request over TLS or with
	// X-Forwarded-Proto: https gets NonceCookieSecure, any other
	// NonceCookie.
	Secure bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives the reasons requests are refused; nil means
	// slog.Default().
	Logger *slog.Logger
}

// The names of the nonce cookie that ties a sign-in to the browser that
// started it: the __Host- name over HTTPS (Secure, Path=/, no Domain, so
// that no other host or plain-HTTP page can set it), the plain name over
// HTTP (browsers refuse __Host- cookies without Secure).
const (
	NonceCookieSecure = "__Host-elicitgen_flow"
	NonceCookie       = "elicitgen_flow"
)

// ConnectHandlers are the two pages of a URL step, on your own server.
//
// A sign-in completes once, in the browser that started it. The connect
// page gives the browser a fresh random nonce in an HttpOnly, SameSite=Lax
// cookie, sealed with the flow id, and passes the third party a sealed
// state that carries the flow and the nonce's SHA-256; the callback
// completes the flow only for the browser that holds that cookie, claims
// the flow in the GrantStore before Exchange runs, so that a replayed or
// reloaded callback never exchanges again, and clears the cookie. Every
// page is sent with Cache-Control: no-store, Referrer-Policy: no-referrer
// and may not be framed (X-Frame-Options: DENY, CSP frame-ancestors
// 'none'). See docs/signin.md.
type ConnectHandlers struct {
	// Connect serves the link the tool sends (?flow=TOKEN): it verifies the
	// token, checks that the signed-in browser user is the user who started
	// the flow, sets the nonce cookie and only then redirects to the third
	// party. Anyone else gets 403 and nothing is stored.
	Connect http.Handler
	// Callback serves the third party's redirect (?state=STATE&...): it
	// verifies the state, the user again and the nonce cookie, claims the
	// flow, lets Exchange make the grant, stores it for that user and marks
	// the flow complete.
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
	if opts.FlowTTL <= 0 {
		opts.FlowTTL = DefaultStateTTL
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	c := &connect{opts: opts}
	return ConnectHandlers{Connect: http.HandlerFunc(c.serveConnect), Callback: http.HandlerFunc(c.serveCallback)}
}

type connect struct{ opts ConnectOptions }

// signInState is the state passed to the third party, sealed: the flow,
// and the SHA-256 of the nonce in the cookie of the browser that started
// the sign-in.
type signInState struct {
	Flow      ConnectFlow `json:"f"`
	NonceHash []byte      `json:"h"`
}

// nonceValue is the value of the nonce cookie, sealed: the flow it was
// given for and the nonce.
type nonceValue struct {
	FlowID string `json:"f"`
	Nonce  []byte `json:"n"`
}

// The bindings of the sign-in state and the nonce cookie: neither opens as
// the other, as a flow token or as a requestState, nor under another
// audience.
func signInStateBinding(audience string) Binding {
	return Binding{Tool: "elicitgen/connect-state", Audience: audience}
}

func nonceBinding(audience string) Binding {
	return Binding{Tool: "elicitgen/connect-nonce", Audience: audience}
}

// seal seals v as JSON under b for FlowTTL.
func (c *connect) seal(b Binding, v any, now time.Time) (string, error) {
	payload, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return c.opts.Keys.Seal(b, 0, payload, now, c.opts.FlowTTL)
}

// open opens what seal sealed under b into v.
func (c *connect) open(b Binding, sealed string, v any) bool {
	if len(sealed) > MaxFlowTokenLen {
		return false
	}
	_, payload, err := c.opts.Keys.Open(b, sealed, c.opts.Now())
	return err == nil && json.Unmarshal(payload, v) == nil
}

// secure reports whether r reached the pages over HTTPS.
func (c *connect) secure(r *http.Request) bool {
	return c.opts.Secure || r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// nonceCookie returns the nonce cookie for r, with value and max age (-1
// deletes it).
func (c *connect) nonceCookie(r *http.Request, value string, maxAge int) *http.Cookie {
	ck := &http.Cookie{Name: NonceCookie, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true, SameSite: http.SameSiteLaxMode}
	if c.secure(r) {
		ck.Name, ck.Secure = NonceCookieSecure, true
	}
	return ck
}

// pageHeaders sets the headers of every response of the two pages, error
// pages included.
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
}

// Messages of the refusals.
const (
	msgInvalidLink  = "This link is invalid or has expired. Start again from your assistant."
	msgOtherUser    = "This link was made for another user. Sign in as the user who asked, or start again from your assistant."
	msgDone         = "This sign-in has already completed. Return to your assistant."
	msgOtherBrowser = "This sign-in was not started in this browser, or took too long. Open the link from your assistant again."
)

// checkUser checks that the browser user is f's subject; on failure it
// has written the response.
func (c *connect) checkUser(w http.ResponseWriter, r *http.Request, f ConnectFlow) bool {
	subject, ok := "", false
	if c.opts.Authenticate != nil {
		subject, ok = c.opts.Authenticate(r)
	}
	if !ok || subject == "" || subject != f.Subject {
		c.opts.Logger.Warn("elicitgen: connect: browser user is not the user who started the flow", "path", r.URL.Path, "tool", f.Tool, "step", f.Step, "signed_in", ok)
		http.Error(w, msgOtherUser, http.StatusForbidden)
		return false
	}
	return true
}

// checkNotDone refuses, with 409, a flow that has already completed; on
// failure it has written the response.
func (c *connect) checkNotDone(w http.ResponseWriter, r *http.Request, f ConnectFlow) bool {
	_, done, err := c.opts.Grants.FlowSubject(r.Context(), f.ID)
	if err != nil {
		c.opts.Logger.Error("elicitgen: connect: grant store", "err", err)
		http.Error(w, "cannot read the sign-in", http.StatusInternalServerError)
		return false
	}
	if done {
		c.opts.Logger.Info("elicitgen: connect: flow already completed", "path", r.URL.Path, "tool", f.Tool, "step", f.Step)
		http.Error(w, msgDone, http.StatusConflict)
		return false
	}
	return true
}

func (c *connect) serveConnect(w http.ResponseWriter, r *http.Request) {
	pageHeaders(w)
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	now := c.opts.Now()
	f, err := c.opts.Keys.OpenFlow(r.URL.Query().Get("flow"), c.opts.Audience, now)
	if err != nil {
		c.opts.Logger.Info("elicitgen: connect: flow token refused", "path", r.URL.Path)
		http.Error(w, msgInvalidLink, http.StatusBadRequest)
		return
	}
	if !c.checkUser(w, r, f) || !c.checkNotDone(w, r, f) {
		return
	}
	nonce := make([]byte, 32)
	_, _ = rand.Read(nonce) // never fails
	hash := sha256.Sum256(nonce)
	cookie, err := c.seal(nonceBinding(c.opts.Audience), nonceValue{FlowID: f.ID, Nonce: nonce}, now)
	if err != nil {
		c.opts.Logger.Error("elicitgen: connect: cannot seal the nonce", "err", err)
		http.Error(w, "cannot start the sign-in", http.StatusInternalServerError)
		return
	}
	state, err := c.seal(signInStateBinding(c.opts.Audience), signInState{Flow: f, NonceHash: hash[:]}, now)
	if err != nil {
		c.opts.Logger.Error("elicitgen: connect: cannot seal the state", "err", err)
		http.Error(w, "cannot start the sign-in", http.StatusInternalServerError)
		return
	}
	target, err := c.opts.AuthorizeURL(r, f, state)
	if err != nil {
		c.opts.Logger.Error("elicitgen: connect: AuthorizeURL", "tool", f.Tool, "err", err)
		http.Error(w, "cannot start the sign-in", http.StatusInternalServerError)
		return
	}
	http.SetCookie(w, c.nonceCookie(r, cookie, max(1, int(c.opts.FlowTTL/time.Second))))
	http.Redirect(w, r, target, http.StatusFound)
}

func (c *connect) serveCallback(w http.ResponseWriter, r *http.Request) {
	pageHeaders(w)
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var st signInState
	if !c.open(signInStateBinding(c.opts.Audience), r.URL.Query().Get("state"), &st) || st.Flow.ID == "" || len(st.NonceHash) != sha256.Size {
		c.opts.Logger.Info("elicitgen: connect: sign-in state refused", "path", r.URL.Path)
		http.Error(w, msgInvalidLink, http.StatusBadRequest)
		return
	}
	f := st.Flow
	if !c.checkUser(w, r, f) || !c.checkNotDone(w, r, f) {
		return
	}
	// The browser must hold the nonce cookie the connect page gave it for
	// this flow, with the nonce this state was made with.
	var nv nonceValue
	ck, err := r.Cookie(c.nonceCookie(r, "", 0).Name)
	if err != nil || !c.open(nonceBinding(c.opts.Audience), ck.Value, &nv) || nv.FlowID != f.ID {
		c.opts.Logger.Warn("elicitgen: connect: callback without the nonce cookie of the flow", "tool", f.Tool, "step", f.Step, "cookie", err == nil)
		http.Error(w, msgOtherBrowser, http.StatusForbidden)
		return
	}
	if hash := sha256.Sum256(nv.Nonce); subtle.ConstantTimeCompare(hash[:], st.NonceHash) != 1 {
		c.opts.Logger.Warn("elicitgen: connect: nonce cookie of another sign-in", "tool", f.Tool, "step", f.Step)
		http.Error(w, msgOtherBrowser, http.StatusForbidden)
		return
	}
	// One completion: claimed before anything is exchanged.
	ctx := r.Context()
	claimed, err := c.opts.Grants.ClaimFlow(ctx, f.ID, c.opts.FlowTTL)
	if err != nil {
		c.opts.Logger.Error("elicitgen: connect: grant store", "err", err)
		http.Error(w, "cannot record the sign-in", http.StatusInternalServerError)
		return
	}
	if !claimed {
		c.opts.Logger.Info("elicitgen: connect: flow already claimed", "tool", f.Tool, "step", f.Step)
		http.Error(w, msgDone, http.StatusConflict)
		return
	}
	if status, msg := c.complete(r, f); status != http.StatusOK {
		if err := c.opts.Grants.ReleaseFlow(ctx, f.ID); err != nil {
			c.opts.Logger.Error("elicitgen: connect: grant store", "err", err)
		}
		http.Error(w, msg, status)
		return
	}
	http.SetCookie(w, c.nonceCookie(r, "", -1))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>Connected</title><p>Connected. Return to your assistant: %s can go on.</p>\n", html.EscapeString(f.Tool))
}

// complete runs the exchange of a claimed flow and records its grant and
// completion; on failure it returns the status and message to send.
func (c *connect) complete(r *http.Request, f ConnectFlow) (int, string) {
	ctx := r.Context()
	grant, err := c.opts.Exchange(r, f)
	if err != nil {
		c.opts.Logger.Info("elicitgen: connect: exchange failed", "tool", f.Tool, "err", err)
		return http.StatusBadGateway, "The sign-in did not complete. Open the link from your assistant to try again."
	}
	if err := c.opts.Grants.PutGrant(ctx, f.Subject, f.Step, grant, c.opts.GrantTTL); err != nil {
		c.opts.Logger.Error("elicitgen: connect: cannot store the grant", "err", err)
		return http.StatusInternalServerError, "cannot store the grant"
	}
	if err := c.opts.Grants.CompleteFlow(ctx, f.ID, f.Subject, c.opts.FlowTTL); err != nil {
		c.opts.Logger.Error("elicitgen: connect: cannot record the sign-in", "err", err)
		return http.StatusInternalServerError, "cannot record the sign-in"
	}
	return http.StatusOK, ""
}
