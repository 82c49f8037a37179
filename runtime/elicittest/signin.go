package elicittest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/elicitgen/elicitgen/internal/seal"
)

// A URL step's sign-in, finished by the kit as the server's own sign-in
// pages finish it (runtime/signin): the kit opens the flow token the link
// carries with the server's key ring, claims the flow in the server's
// grant store, stores a grant for the principal under the step's key and
// records the flow finished for the principal (or, for DenySignIn,
// denied), before it answers accept. The kit can do this because it gives
// the server its ToolOptions: the key ring, the grant store, the clock and
// the principal are the kit's, or the test's own in Options.Tool.

// DefaultPrincipal is the user the server's requests act for
// (ToolOptions.Principal) unless Options.Principal or Options.Tool says
// otherwise: a URL step needs one, as its sign-in finishes for a user.
const DefaultPrincipal = "elicittest-user"

// DefaultGrant is the grant a SignIn stores for the principal under the
// step's key unless the step says otherwise (Step.Grant): what the third
// party's token would be.
var DefaultGrant = []byte("elicittest grant")

// DefaultLegacyURLWait is the ToolOptions.LegacyURLWait the kit gives a
// server unless Options.Tool sets one: on 2025-11-25 the call waits this
// long for a sign-in after its URL step is accepted. A SignIn has finished
// it before the accept is sent, so it is found at the first look (100 ms);
// a URL step accepted without a sign-in ends the call with the server's
// "not finished yet" result once the wait runs out.
const DefaultLegacyURLWait = 500 * time.Millisecond

// What the person does at a URL step besides accepting it.
const (
	actionSignIn = "sign in"
	actionDeny   = "deny the sign-in"
)

// SignIn accepts the URL step step after finishing its sign-in for the
// request's principal, as the server's sign-in pages would: the flow is
// recorded finished in the server's grant store, and DefaultGrant (or
// Step.Grant's) is stored for the principal under the step's key, so the
// tool goes on. Accept(step, nil) instead accepts without finishing: on
// 2026-07-28 the step is asked again ("step.2", the same link), on
// 2025-11-25 the call ends "not finished yet" after LegacyURLWait.
func SignIn(step fmt.Stringer) Step {
	return Step{step: step.String(), action: actionSignIn, grant: DefaultGrant}
}

// DenySignIn accepts the URL step step after the person refused access at
// the third party: the flow is recorded denied, as the sign-in pages do
// for the provider's access_denied, and the tool takes the step's decline
// path.
func DenySignIn(step fmt.Stringer) Step {
	return Step{step: step.String(), action: actionDeny}
}

// Grant sets the grant a SignIn step stores for the principal (nil stores
// none: the flow finishes, and the handler finds no grant).
func (s Step) Grant(grant []byte) Step {
	s.grant = grant
	return s
}

// signer is what the kit needs of the server's options to finish a
// sign-in.
type signer struct {
	keys     *elicitrt.Keyring
	grants   backend.GrantStore
	audience string
	now      func() time.Time
	ttl      time.Duration // of a flow's record: the server's state TTL
}

func newSigner(opts *elicitrt.ToolOptions) *signer {
	ttl := opts.TTL
	if ttl <= 0 {
		ttl = elicitrt.DefaultStateTTL
	}
	return &signer{keys: opts.Keys, grants: opts.Grants, audience: opts.Audience, now: opts.Now, ttl: ttl}
}

// errNoFlowToken is the error of a link that carries no flow token the
// server's keys open.
var errNoFlowToken = errors.New("the link carries no flow token that the server's key ring opens (the kit looks in its query parameters)")

// openLink returns the flow of the token in link's query parameters.
func (g *signer) openLink(link string) (seal.ConnectFlow, error) {
	u, err := url.Parse(link)
	if err != nil {
		return seal.ConnectFlow{}, fmt.Errorf("the link %q: %w", link, err)
	}
	for _, values := range u.Query() {
		for _, v := range values {
			f, err := (*seal.Keyring)(g.keys).OpenFlow(v, g.audience, g.now())
			if err == nil {
				return f, nil
			}
		}
	}
	return seal.ConnectFlow{}, errNoFlowToken
}

// finish records the flow of link finished for principal, with grant
// stored under the flow's step, or denied when deny is set.
func (g *signer) finish(ctx context.Context, link, principal string, grant []byte, deny bool) error {
	f, err := g.openLink(link)
	if err != nil {
		return err
	}
	if !f.IsSubject(principal) {
		return fmt.Errorf("the link's flow is not for the principal %q (Options.Principal)", principal)
	}
	claimed, err := g.grants.ClaimFlow(ctx, f.ID, g.ttl)
	if err != nil {
		return err
	}
	if !claimed {
		return errors.New("the flow is already finished, denied or claimed")
	}
	if deny {
		return g.grants.DenyFlow(ctx, f.ID, g.ttl)
	}
	if grant != nil {
		if err := g.grants.PutGrant(ctx, principal, f.Step, grant, 0); err != nil {
			return err
		}
	}
	return g.grants.CompleteFlow(ctx, f.ID, principal, g.ttl)
}

// SignIn finishes the sign-in of link, a URL step's link, for the
// principal of the client's last request, storing DefaultGrant, as
// the SignIn step does: for a link the script did not answer (a
// fallback=link result, a 2025-11-25 call that ended "not finished yet"),
// before the tool is called again. It fails t when the link carries no
// flow of the server's, or when the flow already finished.
func (c *Client) SignIn(link string) {
	c.t.Helper()
	if err := c.signer.finish(c.ctx(), link, c.principalNow(), DefaultGrant, false); err != nil {
		c.t.Errorf("elicittest: SignIn(%q): %v", link, err)
	}
}

// signInAt finishes (or denies) the sign-in of q, a URL step asked at s.
func (c *Client) signInAt(s Step, q *Question) error {
	if q.Mode != "url" {
		return errors.New("not a URL step")
	}
	return c.signer.finish(c.ctx(), q.URL, c.principalNow(), s.grant, s.action == actionDeny)
}

// Link returns the first line of the result's text that is a URL: the
// link of a URL step whose fallback is link; "" when there is none.
func (o *Outcome) Link() string {
	for line := range strings.Lines(o.Text()) {
		line = strings.TrimSpace(line)
		if u, err := url.Parse(line); err == nil && u.Scheme != "" && u.Host != "" {
			return line
		}
	}
	return ""
}
