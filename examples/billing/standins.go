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
// /provider/: /provider/authorize approves at once and sends the browser
// back to callback with the state and a code. Like a real provider, it
// redirects only to the redirect URI registered for this client, callback
// (400 for any other), so that a code never goes to another site.
func newProvider(callback string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /provider/authorize", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		q := r.URL.Query()
		if q.Get("redirect_uri") != callback {
			http.Error(w, "redirect_uri is not registered for this client", http.StatusBadRequest)
			return
		}
		if q.Get("state") == "" {
			http.Error(w, "state is required", http.StatusBadRequest)
			return
		}
		back := url.Values{"state": {q.Get("state")}, "code": {standInCode}}
		http.Redirect(w, r, callback+"?"+back.Encode(), http.StatusFound)
	})
	return mux
}
