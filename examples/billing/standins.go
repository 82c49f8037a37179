package main

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/signin"
	"github.com/elicitgen/elicitgen/templates"
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

// standInPages are the stand-in pages (standins.html), drawn in the frame
// and style of the library's sign-in pages, so that they look alike.
var standInPages = template.Must(templates.SignIn().ParseFS(standInFiles, "standins.html"))

//go:embed standins.html
var standInFiles embed.FS

// standInData is what a stand-in page reads.
type standInData struct {
	templates.SignInData
	// Return is where the page returns to once done (a path of this
	// site, or ""); Connecting says it is a sign-in link (/connect?...).
	Return     string
	Connecting bool
	// Client, State and Redirect: the consent page's asking service,
	// OAuth state and redirect URI.
	Client, State, Redirect string
}

// renderStandIn writes the stand-in page name with d, under headers as
// strict as the sign-in pages': only the page's own style applies, and its
// form may post to formAction only (a form's redirect included).
func renderStandIn(w http.ResponseWriter, status int, name string, d standInData, formAction string) {
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	d.Nonce, d.Lang = base64.RawURLEncoding.EncodeToString(nonce[:]), "en"
	var body bytes.Buffer
	if err := standInPages.ExecuteTemplate(&body, name, d); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", fmt.Sprintf("default-src 'none'; style-src 'nonce-%s'; base-uri 'none'; form-action %s; frame-ancestors 'none'", d.Nonce, formAction))
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(body.Bytes())
}

// standInHeaders are the headers of every response of the stand-ins.
func standInHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	// same-origin, not no-referrer: with no-referrer a browser sends
	// "Origin: null" with a form's POST, which the origin check refuses.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
}

// The names on the stand-in pages, as the sign-in pages show them
// (ConnectOptions.ServiceName and ProviderName).
const (
	serviceName  = "Billing assistant"
	providerName = "Acme Billing"
)

// accountName is how the pages show a user's account: a real site shows
// the account's e-mail address.
func accountName(subject string) string { return subject + "@example.com" }

// siteData is the data of a page of this site.
func siteData(account string) standInData {
	return standInData{SignInData: templates.SignInData{Service: serviceName, Provider: providerName, Account: account}}
}

// sessions are the stand-in site sessions: the cookie holds the user id
// sealed with the key ring (encrypted, authenticated, expiring), never
// the bare user id, so that no one signs in by setting a cookie by hand.
// A real site keeps its own sessions.
type sessions struct{ keys *elicitrt.Keyring }

// sessionBinding binds session cookies: they open as nothing else, and
// nothing else (a requestState, a flow token, a store's record) opens as
// a session. One binding for every session: the cookie is the record.
var sessionBinding = elicitrt.RecordBinding{Kind: "billing session"}

const sessionTTL = 12 * time.Hour

// cookie is the session cookie that signs the browser in as user.
func (s sessions) cookie(user string) (*http.Cookie, error) {
	sealed, err := s.keys.SealRecord(sessionBinding, 0, []byte(user), time.Now(), sessionTTL)
	if err != nil {
		return nil, err
	}
	return &http.Cookie{Name: sessionCookie, Value: sealed, Path: "/", MaxAge: int(sessionTTL / time.Second), HttpOnly: true, SameSite: http.SameSiteLaxMode}, nil
}

// user is the user r's session cookie signs in, if it opens.
func (s sessions) user(r *http.Request) (string, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return "", false
	}
	_, user, err := s.keys.OpenRecord(sessionBinding, c.Value, time.Now())
	return string(user), err == nil && len(user) > 0
}

// returnTo is the return address r carries, if it is a path of this site
// (signin.SameOriginPath); "" otherwise.
func returnTo(r *http.Request) string {
	back := r.FormValue(returnParam)
	if !signin.SameOriginPath(back) {
		return ""
	}
	return back
}

// loginPage is the stand-in site login. GET shows a form; a POST with
// user=NAME signs the browser in as NAME (a real site checks a password or
// asks its identity provider). A POST from another origin is refused, so
// that no other site can sign a browser in. The sign-in pages send a
// signed-out person here with return_to, the link they opened: the form
// says why, and once signed in, the browser goes back there (303), if it
// is a path of this site (signin.SameOriginPath); any other return_to is
// ignored, so that this page never sends anyone to another site. The
// form may post to this site only, and its redirects reach this site and
// the provider only (a sign-in link goes on to the provider): the page's
// form-action.
func loginPage(base, provider string, s sessions) http.Handler {
	origin := siteOrigin(base)
	formAction := "'self' " + siteOrigin(provider)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		standInHeaders(w)
		back := returnTo(r)
		switch r.Method {
		case http.MethodGet:
			d := siteData("")
			d.Return, d.Connecting = back, strings.HasPrefix(back, "/connect?")
			renderStandIn(w, http.StatusOK, "billing-login", d, formAction)
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
			ck, err := s.cookie(user)
			if err != nil {
				http.Error(w, "internal error", http.StatusInternalServerError)
				return
			}
			http.SetCookie(w, ck)
			if back != "" {
				http.Redirect(w, r, back, http.StatusSeeOther)
				return
			}
			renderStandIn(w, http.StatusOK, "billing-signed-in", siteData(accountName(user)), "'none'")
		default:
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
	})
}

// logoutPage is the stand-in sign-out (ConnectOptions.SignOutURL): GET
// shows who is signed in and a button, whose POST (from this site only)
// ends the session, then returns to return_to (the sign-in link the
// other-account page came from) when it is a path of this site: the link
// then sends the signed-out person to the login page, and back (this site
// only: the page's form-action is 'self').
func logoutPage(base string, s sessions) http.Handler {
	origin := siteOrigin(base)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		standInHeaders(w)
		back := returnTo(r)
		switch r.Method {
		case http.MethodGet:
			user, ok := s.user(r)
			d := siteData("")
			if ok {
				d.Account = accountName(user)
			}
			d.Return, d.Connecting = back, strings.HasPrefix(back, "/connect?")
			renderStandIn(w, http.StatusOK, "billing-logout", d, "'self'")
		case http.MethodPost:
			if o := r.Header.Get("Origin"); o != "" && o != origin {
				http.Error(w, "sign-out from another site", http.StatusForbidden)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
			if back != "" {
				http.Redirect(w, r, back, http.StatusSeeOther)
				return
			}
			renderStandIn(w, http.StatusOK, "billing-signed-out", siteData(""), "'none'")
		default:
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
	})
}

// standInCode is the one authorization code of the stand-in provider.
const standInCode = "stand-in-code"

// newProvider returns the stand-in billing provider's pages, under
// /provider/. GET /provider/authorize shows the consent page (naming the
// service that asks and, from OpenID Connect's login_hint, the account),
// whose Allow
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
			d := standInData{SignInData: templates.SignInData{Service: providerName, Account: r.FormValue("login_hint")},
				Client: serviceName, State: state, Redirect: redirect}
			renderStandIn(w, http.StatusOK, "acme-consent", d, "'self' "+siteOrigin(callback))
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
