package signin

import (
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/templates"
)

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
