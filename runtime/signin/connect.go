package signin

import (
	"net/http"
	"net/url"

	"github.com/elicitgen/elicitgen/internal/refuse"
	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/templates"
)

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
	target, err := c.opts.AuthorizeURL(r, flowOf(f), state)
	if err != nil {
		c.fail(w, r, "AuthorizeURL of "+f.Tool, err, link)
		return
	}
	http.SetCookie(w, cookie)
	http.Redirect(w, r, target, http.StatusFound)
}
