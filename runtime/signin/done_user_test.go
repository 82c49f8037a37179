package signin

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// TestConnectDonePageOnlyForItsUser: once alice's flow has finished,
// connected or denied, the done page, which names her account and the
// provider, is hers alone. Mallory, signed in as another account, opening
// the connect link or the callback again gets the other-account page
// (403), which names mallory's account only; a browser where nobody is
// signed in gets the signed-out page (401). Neither changes the flow's
// record, and alice then still gets her done page (409).
func TestConnectDonePageOnlyForItsUser(t *testing.T) {
	for _, outcome := range []string{"connected", "denied"} {
		for _, opened := range []string{"link", "callback"} {
			t.Run(outcome+"/"+opened, func(t *testing.T) {
				s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false, connTBrand,
					func(o *ConnectOptions) { o.SignOutURL = "/logout" })
				resultCode, doneH1, recorded, exchanges := http.StatusOK, "<h1>You're already connected</h1>", "alice", int64(1)
				if outcome == "denied" {
					denied := "access_denied"
					s.providerError.Store(&denied)
					resultCode, doneH1, recorded, exchanges = http.StatusForbidden, "<h1>You already chose not to connect</h1>", "", 0
				}
				f, tok := s.token(t, "alice")
				alice := s.browser(t, "alice")
				callback := s.connect(t, alice, tok)
				if code, _, body := connTBody(t, alice, callback); code != resultCode {
					t.Fatalf("alice's callback: %d %s", code, body)
				}
				target := callback
				if opened == "link" {
					target = s.url + "/connect?flow=" + url.QueryEscape(tok)
				}
				// What only the done page says, and whose it is.
				leaks := []string{"alice", doneH1, "already connected", "Already connected", "already chose not to connect",
					"Already answered", "finished earlier", "This sign-in is finishing"}

				code, _, body := connTBody(t, s.browser(t, "mallory"), target)
				if code != http.StatusForbidden || !strings.Contains(body, "<h1>This link is for another account</h1>") ||
					!strings.Contains(body, "mallory@example.com") || connTSignOutHref(t, body) == "" {
					t.Errorf("mallory opens alice's finished %s: %d, not the other-account page:\n%s", opened, code, connTMain(body))
				}
				for _, leak := range append(leaks, "Acme Billing") {
					if strings.Contains(body, leak) {
						t.Errorf("mallory's page shows %q", leak)
					}
				}

				code, _, body = connTBody(t, s.browser(t, ""), target)
				if code != http.StatusUnauthorized || !strings.Contains(body, "<h1>Sign in to continue</h1>") {
					t.Errorf("nobody signed in opens alice's finished %s: %d, not the signed-out page:\n%s", opened, code, connTMain(body))
				}
				for _, leak := range leaks {
					if strings.Contains(body, leak) {
						t.Errorf("the signed-out page shows %q", leak)
					}
				}

				ctx := context.Background()
				if subject, done, _ := s.grants.FlowSubject(ctx, f.ID); !done || subject != recorded {
					t.Fatalf("the flow's record after the other browsers: %q %v", subject, done)
				}
				if n := s.exchanges.Load(); n != exchanges {
					t.Fatalf("%d exchanges", n)
				}

				// The control: alice herself gets the done page.
				code, _, body = connTBody(t, alice, target)
				if code != http.StatusConflict || !strings.Contains(body, doneH1) ||
					!strings.Contains(body, "alice@example.com") || !strings.Contains(body, "Acme Billing") {
					t.Fatalf("alice opens her finished %s: %d\n%s", opened, code, connTMain(body))
				}
			})
		}
	}
}

// connTMain is the <main> element of a page (all of body without one):
// what a failure shows.
func connTMain(body string) string {
	_, main, ok := strings.Cut(body, "<main>")
	if !ok {
		return body
	}
	main, _, _ = strings.Cut(main, "</main>")
	return strings.TrimSpace(main)
}
