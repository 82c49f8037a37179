package main

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/signin"
)

// TestLongBearerTokenDoesNotCrash: the stand-in authentication takes any
// bearer token as the user id, and the URL step binds that user into its
// flow token. A 40,000-character token used to make Keyring.Seal panic and
// the process exit, then was an internal error for that call; the token
// now carries a digest of the user, so that user gets a link like anyone's,
// within MaxFlowTokenLen, and the server goes on serving.
func TestLongBearerTokenDoesNotCrash(t *testing.T) {
	s := startSite(t)
	long := s.mcpClient(t, "http", strings.Repeat("A", 40_000), hosttest.Options{User: &hosttest.User{}, Capabilities: bothModes, Manual: true})
	res, err := list(long, "", nil)
	if err != nil || !res.NeedsInput() {
		t.Fatalf("a 40,000-character principal: %+v %v", res, err)
	}
	if _, req := urlRequest(t, res); len(strings.TrimPrefix(req.URL, s.url+"/connect?flow=")) > signin.MaxFlowTokenLen {
		t.Fatalf("a 40,000-character principal: a link of %d bytes", len(req.URL))
	}
	ok := s.mcpClient(t, "http", "alice", hosttest.Options{User: &hosttest.User{}, Capabilities: bothModes, Manual: true})
	res, err = list(ok, "", nil)
	if err != nil || !res.NeedsInput() {
		t.Fatalf("after: %+v %v", res, err)
	}
	if _, req := urlRequest(t, res); req.Mode != "url" {
		t.Fatalf("after: %+v", req)
	}
}

// TestLegacyDenialDeclines: on 2025-11-25 the call waits for the browser
// after the person accepts the link; a Deny at the provider ends that wait
// at once in the step's decline path, as a retry does on 2026-07-28.
func TestLegacyDenialDeclines(t *testing.T) {
	s := startSiteWith(t, "localhost")
	b := s.browser(t, "alice")
	u := &hosttest.User{OnAsk: func(p *mcp.ElicitParams) {
		// The person opens the link and clicks Deny, while the call waits.
		go func() {
			resp, err := b.Get(p.URL)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			consent := *resp.Request.URL
			consent.RawQuery = ""
			form := resp.Request.URL.Query()
			form.Set("decision", "deny")
			if resp, err = b.PostForm(consent.String(), form); err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		}()
	}, Replies: []*mcp.ElicitResult{{Action: "accept"}}}
	cs := s.mcpClientEra(t, "http", "legacy", "alice", hosttest.Options{User: u, Capabilities: bothModes})
	start := time.Now()
	res, err := list(cs, "", nil)
	if err != nil || res.IsError || hosttest.Text(res) != notConnected {
		t.Fatalf("a legacy call denied at the provider: %+v %v", res, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the denial was noticed after %v", d)
	}
}
