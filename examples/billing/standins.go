package main

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
)

// The stand-ins of this file are what a real server replaces with its own
// site login and the billing provider's OAuth endpoints.

// loginPage is the stand-in site login. GET shows a form; a POST with
// user=NAME signs the browser in as NAME (a real site checks a password or
// asks its identity provider). A POST from another origin is refused, so
// that no other site can sign a browser in.
func loginPage(base string) http.Handler {
	origin := ""
	if u, err := url.Parse(base); err == nil {
		origin = u.Scheme + "://" + u.Host
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Frame-Options", "DENY")
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><title>Sign in</title>
<form method="post" action="/login"><label>User <input id="user" name="user" autocomplete="username"></label> <button id="signin" type="submit">Sign in</button></form>
`)
		case http.MethodPost:
			if o := r.Header.Get("Origin"); o != "" && o != origin {
				http.Error(w, "sign-in from another site", http.StatusForbidden)
				return
			}
			user := r.PostFormValue("user")
			if user == "" {
				http.Error(w, "name a user", http.StatusBadRequest)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: user, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<!doctype html><title>Signed in</title><p id=\"signed-in\">Signed in as %s.</p>\n", html.EscapeString(user))
		default:
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
	})
}

// standInCode is the one authorization code of the stand-in provider.
const standInCode = "stand-in-code"

// newProvider returns the stand-in billing provider's pages, under
// /provider/. GET /provider/authorize shows the consent page, whose Allow
// button posts back to it; the POST sends the browser back to callback
// with the state and a code (303). As a real provider, it redirects only
// to the redirect URI registered for this client, callback (400 for any
// other, on both methods), so that a code never goes to another site; and
// as on a real provider, the way back to the callback is a navigation that
// a page of the provider's site starts (so a SameSite=Strict cookie of the
// app's site is not sent with it; a Lax one is).
func newProvider(callback string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/provider/authorize", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Frame-Options", "DENY")
		if r.Method != http.MethodGet && r.Method != http.MethodPost {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if r.Method == http.MethodPost {
			if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host && o != "https://"+r.Host {
				http.Error(w, "consent from another site", http.StatusForbidden)
				return
			}
		}
		state, redirect := r.FormValue("state"), r.FormValue("redirect_uri")
		if redirect != callback {
			http.Error(w, "redirect_uri is not registered for this client", http.StatusBadRequest)
			return
		}
		if state == "" {
			http.Error(w, "state is required", http.StatusBadRequest)
			return
		}
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><title>Billing provider</title>
<form method="post" action="/provider/authorize"><p>Allow the billing MCP server to read your invoices?</p>
<input type="hidden" name="state" value="%s"><input type="hidden" name="redirect_uri" value="%s">
<button id="allow" type="submit">Allow</button></form>
`, html.EscapeString(state), html.EscapeString(redirect))
			return
		}
		back := url.Values{"state": {state}, "code": {standInCode}}
		http.Redirect(w, r, callback+"?"+back.Encode(), http.StatusSeeOther)
	})
	return mux
}
