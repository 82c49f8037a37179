package machine

import (
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/contract"
	"github.com/elicitgen/elicitgen/internal/seal"
)

// The link in the result: a URL step whose fallback is FallbackLink, asked
// of a request that cannot show URL mode (most hosts of the 2025-11-25
// era, a form-only client of either era, a client with no elicitation at
// all), does not fail: the call completes with a normal result whose text
// says what to do and carries the step's link on a line of its own, the
// same connect link a URL-mode client would get (the server's own page,
// with its same-user check, single use and expiry). When the person has
// finished in the browser, the next call of the tool, a fresh one with no
// requestState, on either era and any instance sharing the keys and the
// grant store, finds the flow finished and goes on.
//
// So the flow is derived, not drawn (seal.LinkFlowID): from the tool, the
// step, the principal, the audience and a window of ToolOptions.TTL. Every
// call in one window hands out the same link; a link is valid for two
// windows, and a call looks for a finished flow in its window and the one
// before. A denied flow (the person refused at the provider) is not
// handed out again: the next attempt of the window is (at most
// linkAttempts; past them, the step's decline path).

// linkAttempts bounds the flows of one window a principal can start by
// denying them at the provider.
const linkAttempts = 4

// LinkResultText ends the result of a link fallback, after the step's
// message and the link.
const LinkResultText = contract.LinkResultText

// link settles URL step j, which the request cannot show, by a link in
// the result; handled is true as for skip.
func (c *call) link(j int) (handled bool, res mcp.Result, err error) {
	m := c.m
	ttl := m.opts.TTL
	window := c.now.UnixNano() / int64(ttl)
	var open string // the flow of this window to hand out
	for _, w := range []int64{window, window - 1} {
		flow, finished, err := c.linkFlow(j, w)
		if err != nil {
			return true, nil, err
		}
		if finished {
			c.urlStep(j, backend.URLFinished)
			c.st.Flow = flow
			c.st.finishURLStep(j)
			m.advance(&c.st)
			return true, nil, nil
		}
		if w == window {
			open = flow
		}
	}
	if open == "" {
		// Every attempt of the window denied: the person said no.
		c.urlStep(j, backend.URLDenied)
		res, err := m.flow.Ended(c.ctx, c.req, c.args, j, ActionDecline, c.st.Answers)
		return true, res, err
	}
	expires := time.Unix(0, (window+2)*int64(ttl))
	token, err := m.keys.SealLinkFlow(seal.ConnectFlow{ID: open, Subject: c.bind.Principal, Tool: m.tool, Step: m.steps[j].Key}, m.opts.Audience, expires)
	if err != nil {
		c.log().Warn("elicitgen: cannot seal a flow token", "err", err)
		return true, nil, ErrInternal
	}
	c.urlStep(j, backend.URLSent)
	url := m.flow.Link(c.ctx, c.req, c.args, j, c.st.Answers, token)
	return true, LinkResult(c.message(j), url), nil
}

// linkFlow returns the first flow of window w not denied, and whether it
// finished for the call's principal; "" when every attempt was denied.
func (c *call) linkFlow(j int, w int64) (flow string, finished bool, err error) {
	m := c.m
	for n := range linkAttempts {
		flow = m.keys.LinkFlowID(m.tool, m.steps[j].Key, c.bind.Principal, m.opts.Audience, w, n)
		finished, denied, err := m.flowFinished(c.ctx, flow, c.bind.Principal)
		if err != nil {
			c.storeError(err, "grants", "FlowSubject")
			return "", false, err
		}
		if !denied {
			return flow, finished, nil
		}
	}
	return "", false, nil
}

// LinkResult is the result of a link fallback: what to do, the link on a
// line of its own, and how to go on.
func LinkResult(message, link string) *mcp.CallToolResult {
	return elicitrt.Text(message + "\n\n" + link + "\n\n" + LinkResultText)
}
