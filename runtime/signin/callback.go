package signin

import (
	"crypto/sha256"
	"net/http"
	"net/url"

	"github.com/elicitgen/elicitgen/internal/refuse"
	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/templates"
)

// ProviderAnswer is what the third party answered a sign-in, as the
// callback reads it (ConnectOptions.ProviderAnswer).
type ProviderAnswer int

const (
	// ProviderApproved: the person allowed access; Exchange runs.
	ProviderApproved ProviderAnswer = iota
	// ProviderDenied: the person refused. The flow ends as declined
	// (backend.GrantStore.DenyFlow), so that the tool call's retry takes the
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
		c.opts.Logger.Info("elicitgen: connect: the provider failed", "tool", f.Tool, "step", f.Step, "error", refuse.Bounded(r.URL.Query().Get("error")))
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
	grant, err := c.opts.Exchange(r, flowOf(f))
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
