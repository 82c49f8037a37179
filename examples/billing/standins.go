package main

import (
	"fmt"
	"html"
	"net/http"
	"net/url"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// The stand-ins of this file are what a real server replaces with its own
// site login and the billing provider's OAuth endpoints.

// returnParam is the query parameter, and form field, that carries where
// the login page returns to (ConnectOptions.LoginReturnParam's default).
const returnParam = "return_to"

// siteOrigin is the scheme and host of base.
func siteOrigin(base string) string {
	if u, err := url.Parse(base); err == nil {
		return u.Scheme + "://" + u.Host
	}
	return ""
}

// standInHeaders are the headers of the stand-in pages.
func standInHeaders(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
}

// loginPage is the stand-in site login. GET shows a form; a POST with
// user=NAME signs the browser in as NAME (a real site checks a password or
// asks its identity provider). A POST from another origin is refused, so
// that no other site can sign a browser in. The sign-in pages send a
// signed-out person here with return_to, the link they opened: once signed
// in, the browser goes back there (303), if it is a path of this site
// (elicitrt.SameOriginPath); any other return_to is ignored, so that this
// page never sends anyone to another site.
func loginPage(base string) http.Handler {
	origin := siteOrigin(base)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		standInHeaders(w)
		back := r.FormValue(returnParam)
		if !elicitrt.SameOriginPath(back) {
			back = ""
		}
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in</title>
<h1>Sign in to Billing assistant</h1>
<form method="post" action="/login"><input type="hidden" name="%s" value="%s"><label>User <input id="user" name="user" autocomplete="username"></label> <button id="signin" type="submit">Sign in</button></form>
`, returnParam, html.EscapeString(back))
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
			if back != "" {
				http.Redirect(w, r, back, http.StatusSeeOther)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<!doctype html><title>Signed in</title><p id=\"signed-in\">Signed in as %s.</p>\n", html.EscapeString(user))
		default:
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
	})
}

// logoutPage is the stand-in sign-out (ConnectOptions.SignOutURL): GET
// shows a button, whose POST (from this site only) ends the session.
func logoutPage(base string) http.Handler {
	origin := siteOrigin(base)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		standInHeaders(w)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.Method {
		case http.MethodGet:
			fmt.Fprint(w, `<!doctype html><html lang="en"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign out</title>
<h1>Sign out of Billing assistant</h1>
<form method="post" action="/logout"><button id="signout" type="submit">Sign out</button></form>
`)
		case http.MethodPost:
			if o := r.Header.Get("Origin"); o != "" && o != origin {
				http.Error(w, "sign-out from another site", http.StatusForbidden)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
			fmt.Fprint(w, `<!doctype html><title>Signed out</title><p id="signed-out">Signed out. <a href="/login">Sign in</a></p>`+"\n")
		default:
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
	})
}

// standInCode is the one authorization code of the stand-in provider.
const standInCode = "stand-in-code"

// newProvider returns the stand-in billing provider's pages, under
// /provider/. GET /provider/authorize shows the consent page, whose Allow
// and Deny buttons post back to it; the POST sends the browser back to
// callback (303) with the state and a code, or, for Deny, with OAuth
// 2.0's error=access_denied. As a real provider, it redirects only to the
// redirect URI registered for this client, callback (400 for any other,
// on both methods), so that a code never goes to another site; and as on a
// real provider, the way back to the callback is a navigation that a page
// of the provider's site starts (so a SameSite=Strict cookie of the app's
// site is not sent with it; a Lax one is).
func newProvider(callback string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/provider/authorize", func(w http.ResponseWriter, r *http.Request) {
		standInHeaders(w)
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
			fmt.Fprintf(w, `<!doctype html><html lang="en"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme Billing</title>
<form method="post" action="/provider/authorize"><p>Allow Billing assistant to read your invoices?</p>
<input type="hidden" name="state" value="%s"><input type="hidden" name="redirect_uri" value="%s">
<button id="allow" type="submit" name="decision" value="allow">Allow</button> <button id="deny" type="submit" name="decision" value="deny">Deny</button></form>
`, html.EscapeString(state), html.EscapeString(redirect))
			return
		}
		back := url.Values{"state": {state}, "code": {standInCode}}
		if r.PostFormValue("decision") == "deny" {
			back = url.Values{"state": {state}, "error": {"access_denied"}, "error_description": {"The user denied access."}}
		}
		http.Redirect(w, r, callback+"?"+back.Encode(), http.StatusSeeOther)
	})
	return mux
}
