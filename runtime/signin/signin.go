package signin

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/elicitgen/elicitgen/internal/machine"
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
	// Grants records finished flows and grants (nil: backend.DefaultGrants(),
	// the process's store); the same store as the tools'.
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
	AuthorizeURL func(r *http.Request, f seal.ConnectFlow, state string) (string, error)
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
	Exchange func(r *http.Request, f seal.ConnectFlow) (grant []byte, err error)
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

	// The pages a person sees (see docs/signin.md).

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

// ProviderAnswer is what the third party answered a sign-in, as the
// callback reads it (ConnectOptions.ProviderAnswer).
type ProviderAnswer int

const (
	// ProviderApproved: the person allowed access; Exchange runs.
	ProviderApproved ProviderAnswer = iota
	// ProviderDenied: the person refused. The flow ends as declined
	// (machine.GrantStore.DenyFlow), so that the tool call's retry takes the
	// step's decline path; the browser gets templates.PageDenied (403).
	ProviderDenied
	// ProviderFailed: the third party failed, not by the person's choice.
	// Nothing is recorded; the browser gets templates.PageProviderError
	// (502), which offers to start again.
	ProviderFailed
)

// OAuthAnswer reads an OAuth 2.0 authorization response (RFC 6749, section
// 4.1.2.1): error=access_denied, the person's refusal, is ProviderDenied;
// any other error (server_error, invalid_scope...) is ProviderFailed; no
// error is ProviderApproved. A provider that says "no" otherwise needs a
// ConnectOptions.ProviderAnswer of its own.
func OAuthAnswer(r *http.Request) ProviderAnswer {
	q := r.URL.Query()
	switch {
	case !q.Has("error"):
		return ProviderApproved
	case q.Get("error") == "access_denied":
		return ProviderDenied
	default:
		return ProviderFailed
	}
}

// SameOriginPath reports whether target, a return address your login page
// received (ConnectOptions.LoginURL), stays on your own site: a path that
// begins with one "/" (not "//", nor "/\", which browsers read as another
// host), with no scheme, host or user, no backslash and no control
// character or space (browsers drop tabs and newlines, so "/\t/evil" is
// "//evil" to them). Redirect only to a target it accepts; anything else
// goes to your default page.
func SameOriginPath(target string) bool {
	if target == "" || target[0] != '/' || len(target) > seal.MaxFlowTokenLen+256 {
		return false
	}
	if strings.HasPrefix(target, "//") || strings.ContainsAny(target, "\\") {
		return false
	}
	for _, c := range target {
		if c <= ' ' || c == 0x7f || !unicode.IsPrint(c) {
			return false
		}
	}
	u, err := url.Parse(target)
	return err == nil && u.Scheme == "" && u.Host == "" && u.User == nil && !u.IsAbs() && strings.HasPrefix(u.Path, "/") && !strings.HasPrefix(u.Path, "//")
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
// A sign-in finishes once, in the browser that started it. The connect
// page adds a fresh random nonce, with the flow id, to an HttpOnly,
// SameSite=Lax sealed cookie that holds the browser's latest
// MaxSignInsPerBrowser sign-ins, and passes the third party a sealed
// state that carries the flow and the nonce's SHA-256; the callback
// finishes the flow only for the browser whose cookie holds that nonce,
// claims the flow in the machine.GrantStore before Exchange runs, so that a
// replayed or reloaded callback never exchanges again, takes its nonce
// out of the cookie (deleting the cookie once none is left) and
// redirects (303) to the flow's result page, which a reload shows again
// without exchanging anything. What the person sees are the pages of
// ConnectOptions.Pages, branded with the options' names. Every response
// is sent with Cache-Control: no-store, Referrer-Policy: no-referrer,
// X-Content-Type-Options: nosniff, and may not be framed (X-Frame-Options:
// DENY, CSP frame-ancestors 'none'). See docs/signin.md.
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

// signInState is the state passed to the third party, sealed: the flow,
// the SHA-256 of the nonce in the cookie of the browser that started the
// sign-in, and the link it started from (path and query), to start again.
type signInState struct {
	Flow      seal.FlowWire `json:"f"`
	NonceHash []byte        `json:"h"`
	Link      string        `json:"l"`
}

// MaxSignInsPerBrowser is how many sign-ins one browser may have started
// and not finished at once: the nonce cookie holds the nonces of the
// latest ones, so that two tabs (two links, or one link opened twice) do
// not break each other. A sign-in started before that many others loses
// its nonce: its callback gets templates.PageOtherBrowser.
const MaxSignInsPerBrowser = 5

// nonceEntry is one sign-in of the browser: the flow it was started for
// and the nonce its state carries the digest of.
type nonceEntry struct {
	FlowID string `json:"f"`
	Nonce  []byte `json:"n"`
}

// nonceValue is the value of the nonce cookie, sealed: the browser's
// latest sign-ins, oldest first. Earlier releases sealed one sign-in, in
// the fields f and n.
type nonceValue struct {
	LegacyFlowID string       `json:"f,omitempty"`
	LegacyNonce  []byte       `json:"n,omitempty"`
	Entries      []nonceEntry `json:"e,omitempty"`
}

// entries are the sign-ins of v, the one of an earlier release included.
func (v nonceValue) entries() []nonceEntry {
	if v.LegacyFlowID == "" {
		return v.Entries
	}
	return append([]nonceEntry{{FlowID: v.LegacyFlowID, Nonce: v.LegacyNonce}}, v.Entries...)
}

// browserSignIns are the sign-ins the nonce cookie of r holds (none when
// it has none, or one that does not open); cookie reports whether r
// carries the cookie at all.
func (c *connect) browserSignIns(r *http.Request) (entries []nonceEntry, cookie bool) {
	ck, err := r.Cookie(c.nonceCookie(r, "", 0).Name)
	if err != nil {
		return nil, false
	}
	var nv nonceValue
	if c.open(nonceBinding(c.opts.Audience), ck.Value, &nv) != seal.NotRefused {
		return nil, true
	}
	return nv.entries(), true
}

// startSignIn adds a fresh nonce for flowID to the browser's sign-ins,
// dropping the oldest beyond MaxSignInsPerBrowser: it returns the nonce
// cookie to set and the nonce's SHA-256, for the state.
func (c *connect) startSignIn(r *http.Request, flowID string, now time.Time) (*http.Cookie, []byte, error) {
	nonce := make([]byte, 32)
	_, _ = rand.Read(nonce) // never fails
	hash := sha256.Sum256(nonce)
	entries, _ := c.browserSignIns(r)
	entries = append(entries, nonceEntry{FlowID: flowID, Nonce: nonce})
	entries = entries[max(0, len(entries)-MaxSignInsPerBrowser):]
	ck, err := c.signInsCookie(r, entries, now)
	return ck, hash[:], err
}

// signInsCookie is the nonce cookie that holds entries, or deletes the
// cookie when there are none.
func (c *connect) signInsCookie(r *http.Request, entries []nonceEntry, now time.Time) (*http.Cookie, error) {
	if len(entries) == 0 {
		return c.nonceCookie(r, "", -1), nil
	}
	sealed, err := c.seal(nonceBinding(c.opts.Audience), nonceValue{Entries: entries}, now)
	if err != nil {
		return nil, err
	}
	return c.nonceCookie(r, sealed, max(1, int(c.opts.FlowTTL/time.Second))), nil
}

// The bindings of the sign-in state, the nonce cookie and the result page:
// none opens as another, as a flow token or as a requestState, nor under
// another audience.
func signInStateBinding(audience string) seal.Binding {
	return seal.Binding{Tool: "elicitgen/connect-state", Audience: audience}
}

func nonceBinding(audience string) seal.Binding {
	return seal.Binding{Tool: "elicitgen/connect-nonce", Audience: audience}
}

func resultBinding(audience string) seal.Binding {
	return seal.Binding{Tool: "elicitgen/connect-result", Audience: audience}
}

// seal seals v as JSON under b for FlowTTL.
func (c *connect) seal(b seal.Binding, v any, now time.Time) (string, error) {
	payload, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return (*seal.Keyring)(c.opts.Keys).Seal(b, 0, payload, now, c.opts.FlowTTL)
}

// maxSealedLen bounds a sealed state or result read from a URL: a state
// carries a link, itself carrying a flow token.
const maxSealedLen = 3 * seal.MaxFlowTokenLen

// open opens what seal sealed under b into v: seal.NotRefused, or why it
// does not open.
func (c *connect) open(b seal.Binding, sealed string, v any) seal.Refusal {
	if len(sealed) > maxSealedLen {
		return seal.RefusedTampered
	}
	_, payload, _, why := (*seal.Keyring)(c.opts.Keys).OpenReason(b, sealed, c.opts.Now())
	if why == seal.NotRefused && json.Unmarshal(payload, v) != nil {
		why = seal.RefusedTampered
	}
	return why
}

// refused logs (refuse.Log: at Warn, rate-limited) that what the browser
// brought, of kind what, was refused and why; the page says only that the
// link is not valid.
func (c *connect) refused(what string, why seal.Refusal) {
	c.refusals.Refused(c.opts.Logger, what, "", why)
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

// The Content-Security-Policy of every response, and of a page with the
// nonce of its <style> element: nothing loads, no script runs, no form
// submits, and no page may be framed.
const (
	cspBase = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	cspPage = "default-src 'none'; style-src 'nonce-%s'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

// pageHeaders sets the headers of every response of the two pages,
// redirects and errors included.
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", cspBase)
	h.Set("X-Content-Type-Options", "nosniff")
}

// page is what a response shows: one of templates.SignInPages, with its
// status and the data only some pages read.
type page struct {
	name   string
	status int
	// account is the subject the browser is signed in as ("": nobody).
	account string
	// retry, continueTo: the URLs of the page's button.
	retry, continueTo string
	// back is where PageOtherUser's sign-out returns to ("": nowhere).
	back string
	// outcome is PageDone's SignInData.Outcome.
	outcome string
}

// render writes p with the options' names, allowing the page's own style
// only.
func (c *connect) render(w http.ResponseWriter, r *http.Request, p page) {
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	data := templates.SignInData{
		Lang:     c.opts.Lang,
		Service:  c.opts.ServiceName,
		Provider: c.opts.ProviderName,
		Continue: p.continueTo,
		Retry:    p.retry,
		Nonce:    base64.RawURLEncoding.EncodeToString(nonce[:]), // nothing to escape
	}
	if data.Service == "" {
		data.Service = r.Host
	}
	if p.account != "" {
		data.Account = p.account
		if c.opts.AccountName != nil {
			data.Account = c.opts.AccountName(r, p.account)
		}
	}
	if p.name == templates.PageOtherUser {
		data.SignOut = c.signOutURL(p.back)
	}
	data.Outcome = p.outcome
	var body bytes.Buffer
	if err := c.opts.Pages.ExecuteTemplate(&body, p.name, data); err != nil {
		c.opts.Logger.Error("elicitgen: connect: cannot render a page", "page", p.name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", fmt.Sprintf(cspPage, data.Nonce))
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(p.status)
	_, _ = w.Write(body.Bytes())
}

// fail renders the server's own failure (500), logged with err.
func (c *connect) fail(w http.ResponseWriter, r *http.Request, what string, err error, retry string) {
	c.opts.Logger.Error("elicitgen: connect: "+what, "err", err)
	c.render(w, r, page{name: templates.PageError, status: http.StatusInternalServerError, retry: retry})
}

// checkUser checks that the browser user is f's subject, and makes it
// f.Subject; on failure it has answered: nobody signed in goes to
// LoginURL, returning to this very request, or gets PageSignedOut (401);
// another user gets PageOtherUser (403), whose sign-out link returns to
// back (the connect link; "" for none).
func (c *connect) checkUser(w http.ResponseWriter, r *http.Request, f *seal.ConnectFlow, back string) bool {
	subject, ok := "", false
	if c.opts.Authenticate != nil {
		subject, ok = c.opts.Authenticate(r)
	}
	if ok && f.IsSubject(subject) {
		f.Subject = subject
		return true
	}
	signedIn := ok && subject != ""
	c.opts.Logger.Warn("elicitgen: connect: browser user is not the user who started the flow", "path", r.URL.Path, "tool", f.Tool, "step", f.Step, "signed_in", signedIn)
	if signedIn {
		c.render(w, r, page{name: templates.PageOtherUser, status: http.StatusForbidden, account: subject, back: back})
		return false
	}
	if login := c.loginURL(r); login != "" {
		http.Redirect(w, r, login, http.StatusSeeOther)
		return false
	}
	c.render(w, r, page{name: templates.PageSignedOut, status: http.StatusUnauthorized})
	return false
}

// loginURL is LoginURL with the return address of r: its path and query,
// on this site ("" without LoginURL, or if it does not parse).
func (c *connect) loginURL(r *http.Request) string {
	if c.opts.LoginURL == "" {
		return ""
	}
	u, err := url.Parse(c.opts.LoginURL)
	back := r.URL.RequestURI()
	if err != nil || !SameOriginPath(back) {
		return ""
	}
	q := u.Query()
	q.Set(c.opts.LoginReturnParam, back)
	u.RawQuery = q.Encode()
	return u.String()
}

// signOutURL is SignOutURL with back, a path of this site, in
// LoginReturnParam; SignOutURL alone without back, or when it does not
// parse.
func (c *connect) signOutURL(back string) string {
	u, err := url.Parse(c.opts.SignOutURL)
	if c.opts.SignOutURL == "" || back == "" || !SameOriginPath(back) || err != nil {
		return c.opts.SignOutURL
	}
	q := u.Query()
	q.Set(c.opts.LoginReturnParam, back)
	u.RawQuery = q.Encode()
	return u.String()
}

// checkOpen refuses a flow that has already finished: 409 PageDone, which
// says whether it was connected or denied (an answer that comes after a
// denial, as Allow after Back, changes nothing). On failure it has
// answered.
func (c *connect) checkOpen(w http.ResponseWriter, r *http.Request, f seal.ConnectFlow) bool {
	subject, done, err := c.opts.Grants.FlowSubject(r.Context(), f.ID)
	if err != nil {
		c.fail(w, r, "grant store", err, "")
		return false
	}
	if !done {
		return true
	}
	c.opts.Logger.Info("elicitgen: connect: flow already finished", "path", r.URL.Path, "tool", f.Tool, "step", f.Step, "denied", subject == "")
	c.showDone(w, r, f, subject, true)
	return false
}

func (c *connect) serveConnect(w http.ResponseWriter, r *http.Request) {
	pageHeaders(w)
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	now := c.opts.Now()
	q := r.URL.Query()
	f, why := (*seal.Keyring)(c.opts.Keys).OpenFlowReason(q.Get("flow"), c.opts.Audience, now)
	if why != seal.NotRefused {
		c.refused(refuse.Flow, why)
		c.render(w, r, page{name: templates.PageInvalid, status: http.StatusBadRequest})
		return
	}
	link := r.URL.Path + "?" + url.Values{"flow": {q.Get("flow")}}.Encode()
	if !c.checkUser(w, r, &f, link) || !c.checkOpen(w, r, f) {
		return
	}
	if c.opts.Confirm && q.Get("continue") != "1" {
		c.render(w, r, page{name: templates.PageConfirm, status: http.StatusOK, account: f.Subject, continueTo: link + "&continue=1"})
		return
	}
	cookie, hash, err := c.startSignIn(r, f.ID, now)
	if err != nil {
		c.fail(w, r, "cannot seal the nonce", err, link)
		return
	}
	state, err := c.seal(signInStateBinding(c.opts.Audience), signInState{Flow: f.Wire(), NonceHash: hash, Link: link}, now)
	if err != nil {
		c.fail(w, r, "cannot seal the state", err, link)
		return
	}
	target, err := c.opts.AuthorizeURL(r, f, state)
	if err != nil {
		c.fail(w, r, "AuthorizeURL of "+f.Tool, err, link)
		return
	}
	http.SetCookie(w, cookie)
	http.Redirect(w, r, target, http.StatusFound)
}

func (c *connect) serveCallback(w http.ResponseWriter, r *http.Request) {
	pageHeaders(w)
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	if q.Has("done") {
		c.serveResult(w, r, q.Get("done"))
		return
	}
	var st signInState
	why := c.open(signInStateBinding(c.opts.Audience), q.Get("state"), &st)
	f, ok := st.Flow.Flow()
	if why == seal.NotRefused && (!ok || len(st.NonceHash) != sha256.Size) {
		why = seal.RefusedTampered
	}
	if why != seal.NotRefused {
		c.refused(refuse.SignIn, why)
		c.render(w, r, page{name: templates.PageInvalid, status: http.StatusBadRequest})
		return
	}
	if !SameOriginPath(st.Link) {
		st.Link = ""
	}
	if !c.checkUser(w, r, &f, st.Link) || !c.checkOpen(w, r, f) {
		return
	}
	others, ok := c.checkNonce(w, r, f, &st)
	if !ok {
		return
	}
	answer := c.opts.ProviderAnswer(r)
	if !c.claim(w, r, f, st.Link) || !c.record(w, r, f, answer, st.Link) {
		return
	}
	c.showResult(w, r, f, others)
}

// claim claims f before anything is exchanged or recorded: one outcome.
// When it cannot, it has answered: with the done page, as the flow's
// record now stands, when another request holds the claim or finished.
func (c *connect) claim(w http.ResponseWriter, r *http.Request, f seal.ConnectFlow, link string) bool {
	claimed, err := c.opts.Grants.ClaimFlow(r.Context(), f.ID, c.opts.FlowTTL)
	if err != nil {
		c.fail(w, r, "grant store", err, link)
		return false
	}
	if claimed {
		return true
	}
	c.opts.Logger.Info("elicitgen: connect: flow already claimed", "tool", f.Tool, "step", f.Step)
	subject, done, err := c.opts.Grants.FlowSubject(r.Context(), f.ID)
	if err != nil {
		c.fail(w, r, "grant store", err, "")
		return false
	}
	c.showDone(w, r, f, subject, done)
	return false
}

// showResult redirects (303) to the result page of the recorded flow f
// (post-redirect-get: a reload shows it again), keeping in the nonce
// cookie the browser's other sign-ins only.
func (c *connect) showResult(w http.ResponseWriter, r *http.Request, f seal.ConnectFlow, others []nonceEntry) {
	now := c.opts.Now()
	result, err := c.seal(resultBinding(c.opts.Audience), f.Wire(), now)
	if err != nil {
		c.fail(w, r, "cannot seal the result", err, "")
		return
	}
	cookie, err := c.signInsCookie(r, others, now)
	if err != nil {
		cookie = c.nonceCookie(r, "", -1) // the others start again
	}
	http.SetCookie(w, cookie)
	http.Redirect(w, r, r.URL.Path+"?"+url.Values{"done": {result}}.Encode(), http.StatusSeeOther)
}

// showDone renders the done page (409) of f, whose record is subject and
// done: connected, denied, or still finishing elsewhere.
func (c *connect) showDone(w http.ResponseWriter, r *http.Request, f seal.ConnectFlow, subject string, done bool) {
	outcome := ""
	switch {
	case done && subject == "":
		outcome = templates.OutcomeDenied
	case done:
		outcome = templates.OutcomeConnected
	}
	c.render(w, r, page{name: templates.PageDone, status: http.StatusConflict, account: f.Subject, outcome: outcome})
}

// checkNonce reports whether the browser's nonce cookie holds, for this
// flow, the nonce st was made with; otherwise it renders the
// other-browser page. On success it returns the cookie to set once the
// flow is recorded: the browser's other sign-ins, without this one.
func (c *connect) checkNonce(w http.ResponseWriter, r *http.Request, f seal.ConnectFlow, st *signInState) ([]nonceEntry, bool) {
	entries, cookie := c.browserSignIns(r)
	for i, e := range entries {
		if hash := sha256.Sum256(e.Nonce); e.FlowID == f.ID && subtle.ConstantTimeCompare(hash[:], st.NonceHash) == 1 {
			return append(entries[:i:i], entries[i+1:]...), true
		}
	}
	c.opts.Logger.Warn("elicitgen: connect: callback without the nonce of its sign-in", "tool", f.Tool, "step", f.Step, "cookie", cookie, "sign_ins", len(entries))
	c.render(w, r, page{name: templates.PageOtherBrowser, status: http.StatusForbidden, account: f.Subject, retry: st.Link})
	return nil, false
}

// record records the provider's answer for the claimed flow f: the grant,
// or the denial. When it cannot, it gives the claim back, renders the page
// that says so and reports false.
func (c *connect) record(w http.ResponseWriter, r *http.Request, f seal.ConnectFlow, answer ProviderAnswer, link string) bool {
	switch answer {
	case ProviderApproved:
		if p, ok := c.complete(r, f, link); !ok {
			c.release(r, f)
			c.render(w, r, p)
			return false
		}
	case ProviderDenied:
		c.opts.Logger.Info("elicitgen: connect: the user denied access at the provider", "tool", f.Tool, "step", f.Step)
		if err := c.opts.Grants.DenyFlow(r.Context(), f.ID, c.opts.FlowTTL); err != nil {
			c.release(r, f)
			c.fail(w, r, "cannot record the denial", err, link)
			return false
		}
	default:
		c.opts.Logger.Info("elicitgen: connect: the provider failed", "tool", f.Tool, "step", f.Step, "error", machine.Bounded(r.URL.Query().Get("error")))
		c.release(r, f)
		c.render(w, r, page{name: templates.PageProviderError, status: http.StatusBadGateway, account: f.Subject, retry: link})
		return false
	}
	return true
}

// release gives back the claim of f, after an attempt that recorded
// nothing.
func (c *connect) release(r *http.Request, f seal.ConnectFlow) {
	if err := c.opts.Grants.ReleaseFlow(r.Context(), f.ID); err != nil {
		c.opts.Logger.Error("elicitgen: connect: grant store", "err", err)
	}
}

// serveResult shows how the flow sealed in result finished, to its
// subject: PageConnected (200) or PageDenied (403). It reads the store
// only: a reload exchanges nothing.
func (c *connect) serveResult(w http.ResponseWriter, r *http.Request, result string) {
	var fw seal.FlowWire
	why := c.open(resultBinding(c.opts.Audience), result, &fw)
	f, ok := fw.Flow()
	if why == seal.NotRefused && !ok {
		why = seal.RefusedTampered
	}
	if why != seal.NotRefused {
		c.refused(refuse.Result, why)
		c.render(w, r, page{name: templates.PageInvalid, status: http.StatusBadRequest})
		return
	}
	if !c.checkUser(w, r, &f, "") {
		return
	}
	subject, done, err := c.opts.Grants.FlowSubject(r.Context(), f.ID)
	switch {
	case err != nil:
		c.fail(w, r, "grant store", err, "")
	case done && subject == f.Subject:
		c.render(w, r, page{name: templates.PageConnected, status: http.StatusOK, account: f.Subject})
	case done && subject == "":
		c.render(w, r, page{name: templates.PageDenied, status: http.StatusForbidden, account: f.Subject})
	default: // the record expired
		c.render(w, r, page{name: templates.PageInvalid, status: http.StatusBadRequest})
	}
}

// complete runs the exchange of a claimed flow and records its grant and
// completion; on failure it returns the page to show (link starts again).
func (c *connect) complete(r *http.Request, f seal.ConnectFlow, link string) (page, bool) {
	ctx := r.Context()
	grant, err := c.opts.Exchange(r, f)
	if err != nil {
		c.opts.Logger.Info("elicitgen: connect: exchange failed", "tool", f.Tool, "err", err)
		return page{name: templates.PageProviderError, status: http.StatusBadGateway, account: f.Subject, retry: link}, false
	}
	if err := c.opts.Grants.PutGrant(ctx, f.Subject, f.Step, grant, c.opts.GrantTTL); err != nil {
		c.opts.Logger.Error("elicitgen: connect: cannot store the grant", "err", err)
		return page{name: templates.PageError, status: http.StatusInternalServerError, account: f.Subject, retry: link}, false
	}
	if err := c.opts.Grants.CompleteFlow(ctx, f.ID, f.Subject, c.opts.FlowTTL); err != nil {
		c.opts.Logger.Error("elicitgen: connect: cannot record the sign-in", "err", err)
		return page{name: templates.PageError, status: http.StatusInternalServerError, account: f.Subject, retry: link}, false
	}
	return page{}, true
}
