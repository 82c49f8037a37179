package signin

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"

	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/templates"
)

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
