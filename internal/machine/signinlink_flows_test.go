package machine_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/seal"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/signin"
)

// The guarantees of a URL step's sign-in, on the fixture of
// signinlink_test.go: a tool call over the real SDK, the user's browser
// through the sign-in pages and the provider, and the call's retry.

// billingServerSeal seals f under k for a minute from now, under no
// audience.
func billingServerSeal(t *testing.T, k *elicitrt.Keyring, f seal.ConnectFlow, now time.Time) string {
	t.Helper()
	tok, err := (*seal.Keyring)(k).SealFlow(f, "", now, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestFlowTokenRefused: a flow token tampered with, truncated, expired,
// sealed under another key ring, or empty is refused (400) by the connect
// page and, as a state, by the callback; nothing is stored or completed;
// the valid token signs alice in.
func TestFlowTokenRefused(t *testing.T) {
	s := billingServerStart(t)
	b := s.browser(t, "alice")
	f := seal.ConnectFlow{ID: "flow-1", Subject: "alice", Tool: "list_invoices", Step: "billing"}
	token := billingServerSeal(t, s.keys, f, time.Now())
	for name, tok := range map[string]string{
		"tampered":  token[:len(token)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(token, "AA")],
		"truncated": token[:len(token)/2],
		"expired":   billingServerSeal(t, s.keys, f, time.Now().Add(-time.Hour)),
		"other key": billingServerSeal(t, elicitrt.RandomKeyring(), f, time.Now()),
		"empty":     "",
	} {
		for _, page := range []string{"/connect?flow=", "/callback?code=" + billingServerCode + "&state="} {
			if p := billingServerOpen(t, b, s.url+page+url.QueryEscape(tok)); p.code != http.StatusBadRequest {
				t.Errorf("%s token on %s: status %d", name, page, p.code)
			}
		}
	}
	if _, ok := s.grant("alice"); ok {
		t.Fatal("a refused token stored a grant")
	}
	if _, done, _ := s.grants.FlowSubject(context.Background(), "flow-1"); done {
		t.Fatal("a refused token completed the flow")
	}
	if p, err := billingServerDecide(b, s.url+"/connect?flow="+url.QueryEscape(token), "allow"); err != nil || p.code != http.StatusOK || !strings.Contains(p.body, "Connected") {
		t.Fatalf("valid token: %+v %v", p, err)
	}
}

// TestSignInFlowBindsTheUser: the flow token of a URL step's link names
// the user who asked (and nobody else), the tool and the step; each new
// call's link is a flow of its own; a completion recorded for another
// subject (a shared store written by something else) does not complete
// the user's flow, nor a retry of the first; alice's sign-in does.
func TestSignInFlowBindsTheUser(t *testing.T) {
	s := billingServerStart(t)
	cs := s.manual(t, "alice")
	flowOf := func(res *mcp.CallToolResult) seal.ConnectFlow {
		t.Helper()
		u, _ := url.Parse(billingServerURLStep(t, res))
		f, err := (*seal.Keyring)(s.keys).OpenFlow(u.Query().Get("flow"), "", time.Now())
		if err != nil || !f.IsSubject("alice") || f.IsSubject("mallory") || f.Step != "billing" || f.Tool != "list_invoices" {
			t.Fatalf("flow token: %+v %v", f, err)
		}
		return f
	}
	first, err := billingServerList(cs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	f := flowOf(first)
	other, err := billingServerList(cs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	of := flowOf(other)
	if of.ID == f.ID {
		t.Fatalf("a second call's flow is the first's: %s", of.ID)
	}
	_ = s.grants.CompleteFlow(context.Background(), of.ID, "mallory", time.Minute)
	if res, err := billingServerList(cs, other.RequestState, billingServerAccept(t, other)); err != nil || !res.NeedsInput() {
		t.Fatalf("flow completed by the wrong user: %+v %v", res, err)
	}
	still, err := billingServerList(cs, first.RequestState, billingServerAccept(t, first))
	if err != nil || !still.NeedsInput() {
		t.Fatalf("retry before sign-in: %+v %v", still, err)
	}
	if p, err := billingServerDecide(s.browser(t, "alice"), billingServerURLStep(t, first), "allow"); err != nil || p.code != http.StatusOK {
		t.Fatalf("alice's sign-in: %+v %v", p, err)
	}
	done, err := billingServerList(cs, still.RequestState, billingServerAccept(t, still))
	if err != nil || done.NeedsInput() || hosttest.Text(done) != billingServerDone {
		t.Fatalf("after sign-in: %+v %v", done, err)
	}
}

// TestLinkWithoutURLMode: a client that cannot show a URL step (one that
// declares form mode only, as Claude Code, Cursor and Codex do, or no
// elicitation at all), on either era, in memory and over HTTP, gets
// list_invoices' link in a normal result, on a line of its own (before
// fallback=link: -32021, HTTP 400); a second call hands out the same link.
// Another user who opens it gets the other-account page and stores
// nothing; after the user's own sign-in through it, the next plain call
// lists the invoices.
func TestLinkWithoutURLMode(t *testing.T) {
	s := billingServerStart(t)
	mallory := s.browser(t, "mallory")
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			for caps, o := range map[string]hosttest.Options{"form": {User: &hosttest.User{}}, "none": {}} {
				name := transport + "/" + era + "/" + caps
				user := "dave-" + strings.ReplaceAll(name, "/", "-")
				cs := s.client(t, transport, era, user, o)
				link := s.linkOf(t, name, cs)
				if again := s.linkOf(t, name, cs); again != link {
					t.Fatalf("%s: a second call's link %s, want the first's %s", name, again, link)
				}
				if p := billingServerOpen(t, mallory, link); p.code != http.StatusForbidden || !strings.Contains(p.body, "another account") {
					t.Fatalf("%s: mallory opens the link: %d %.200s", name, p.code, p.body)
				}
				if _, ok := s.grant("mallory"); ok {
					t.Fatalf("%s: mallory's visit stored a grant", name)
				}
				if p, err := billingServerDecide(s.browser(t, user), link, "allow"); err != nil || p.code != http.StatusOK {
					t.Fatalf("%s: sign-in through the link: %d %v", name, p.code, err)
				}
				res, err := billingServerList(cs, "", nil)
				if err != nil || hosttest.Text(res) != billingServerDone {
					t.Fatalf("%s: the next call after the sign-in: %+v %v", name, res, err)
				}
			}
		}
	}
}

// linkOf calls list_invoices on cs and returns the connect link its
// result carries, failing unless the result is a normal one that says
// what to do: the step's message, the link on a line of its own, then
// what to do once done in the browser.
func (s *billingServerSite) linkOf(t *testing.T, name string, cs *mcp.ClientSession) string {
	t.Helper()
	res, err := billingServerList(cs, "", nil)
	if err != nil || res.IsError || res.NeedsInput() {
		t.Fatalf("%s: want a result with the link, got %+v %v", name, res, err)
	}
	text := hosttest.Text(res)
	message, rest, _ := strings.Cut(text, "\n\n")
	link, then, _ := strings.Cut(rest, "\n\n")
	if message != billingServerMessage || !strings.HasPrefix(link, s.url+"/connect?flow=") || strings.Contains(link, "\n") || then != machine.LinkResultText {
		t.Fatalf("%s: the result does not give the link and say what to do: %q", name, text)
	}
	return link
}

// TestLongBearerTokenDoesNotCrash: a server that takes any bearer token
// as the user id binds that principal into the URL step's flow token. A
// 40,000-character principal used to make Keyring.Seal panic and the
// process exit, then was an internal error for that call; the token now
// carries a digest of the user, so that user gets a link like anyone's,
// within MaxFlowTokenLen, and the server goes on serving.
func TestLongBearerTokenDoesNotCrash(t *testing.T) {
	s := billingServerStart(t)
	res, err := billingServerList(s.manual(t, strings.Repeat("A", 40_000)), "", nil)
	if err != nil || !res.NeedsInput() {
		t.Fatalf("a 40,000-character principal: %+v %v", res, err)
	}
	if link := billingServerURLStep(t, res); len(strings.TrimPrefix(link, s.url+"/connect?flow=")) > signin.MaxFlowTokenLen {
		t.Fatalf("a 40,000-character principal: a link of %d bytes", len(link))
	}
	res, err = billingServerList(s.manual(t, "alice"), "", nil)
	if err != nil || !res.NeedsInput() {
		t.Fatalf("after: %+v %v", res, err)
	}
	billingServerURLStep(t, res)
}

// TestLongSubjectSignIn: a user id of 4 KiB gets a sign-in link that
// works. Over the real SDK and HTTP, the tool call hands out a link; its
// connect page is served (not 400: the flow token carries a digest of the
// user, not the user, so it stays within MaxFlowTokenLen); another user
// whose id differs in its last byte only gets 403; the user completes the
// sign-in, the grant is stored for that user only, and the retry
// completes. Another user's call is still asked to connect.
func TestLongSubjectSignIn(t *testing.T) {
	long := "user-" + strings.Repeat("0123456789abcdef", 256)[:4091]
	other := long[:len(long)-1] + "X"
	s := billingServerStart(t)
	cs := s.manual(t, long)
	first, link := s.first(t, cs)
	if token := strings.TrimPrefix(link, s.url+"/connect?flow="); len(token) > signin.MaxFlowTokenLen {
		t.Errorf("a %d-byte user id: a %d-byte flow token, over MaxFlowTokenLen (%d)", len(long), len(token), signin.MaxFlowTokenLen)
	}
	if p := billingServerOpen(t, s.browser(t, other), link); p.code != http.StatusForbidden {
		t.Fatalf("another user's browser: %d %s", p.code, p.body)
	}
	if p, err := billingServerDecide(s.browser(t, long), link, "allow"); err != nil || p.code != http.StatusOK || !strings.Contains(p.body, "Connected") {
		t.Fatalf("the user's browser: %+v %v", p, err)
	}
	if g, ok := s.grant(long); !ok || g != "provider-token-for-"+long {
		t.Fatalf("grant of the user: %.40q %v", g, ok)
	}
	if _, ok := s.grant(other); ok {
		t.Fatal("a grant was stored for the other user")
	}
	done, err := billingServerList(cs, first.RequestState, billingServerAccept(t, first))
	if err != nil || done.NeedsInput() || hosttest.Text(done) != billingServerDone {
		t.Fatalf("retry after the sign-in: %+v %v", done, err)
	}
	if res, err := billingServerList(s.manual(t, other), "", nil); err != nil || !res.NeedsInput() {
		t.Fatalf("the other user's call: %+v %v", res, err)
	}
}
