package machine

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/contract"
	"github.com/elicitgen/elicitgen/internal/refuse"
	"github.com/elicitgen/elicitgen/internal/seal"
)

// Preview, then confirm: the path with no one there for a confirmation.
//
// A Once step whose fallback is FallbackPreview, asked of a request that
// cannot show forms, does not fail: the call completes with the handler's
// preview (what will happen) and a confirmation token. Calling the tool
// again with the same arguments plus that token, under
// PreviewTokenArgument, answers the step with its Accept content, as if
// the person had confirmed; the host's own approval prompt for that second
// call is the confirmation. Declining is not calling again.
//
// The token is the server's own grant, never a value the client chose: a
// sealed, short-lived (ToolOptions.PreviewTTL), single-use grant bound to
// the tool, the canonical arguments (without the token), the principal and
// the audience. Its use completes the flow it names once: the completion
// claims the flow's identity in the ReplayGuard, as any Once flow's does,
// so a second use, on any instance sharing the guard, is refused. A token
// with other arguments, for another user, expired, tampered or used is
// refused with a tool error that says to ask for a new preview; nothing
// runs. A request that can show the form is asked it, token or not.
//
// One confirmation, one effect: a valid token presented in a request that
// can show the form is used up by that request's flow, just before the
// form is first asked, by claiming in the ReplayGuard the very identity
// its own use would claim (the tool, the binding of the arguments with
// the token, and the token's flow). Whatever the person answers (confirm,
// decline, cancel), the token completes nothing afterwards; and a token
// already used refuses the request that can ask, before anyone is asked
// (call again without it: the form is asked). So a form confirmation and
// a token never both complete, in either order, on any instance sharing
// the guard. An invalid token (expired, tampered, other arguments or
// user) is ignored there: the form is asked as without one.

// PreviewTokenArgument is the optional tool argument that carries a
// confirmation token; the generator adds it to the input schema of tools
// with a FallbackPreview step.
const PreviewTokenArgument = contract.PreviewTokenArgument

// PreviewTokenDescription is the input schema description of
// PreviewTokenArgument, for the model.
const PreviewTokenDescription = contract.PreviewTokenDescription

// previewGrant is the payload of a confirmation token.
type previewGrant struct {
	Flow string `json:"f"` // the identity of the flow it completes
	Step int    `json:"s"` // the step it answers
	// Questions is the questions digest of the release that made it: a
	// token confirms only what that release's tool asks (skew.go).
	Questions string `json:"v,omitempty"`
}

// previewBinding is what a token of tool is bound to: the tool (under a
// name no requestState or flow token has), the arguments without the
// token, the principal and the audience.
func previewBinding(tool string, bind seal.Binding, args json.RawMessage) seal.Binding {
	return seal.Binding{Tool: "elicitgen/preview:" + tool, ArgsDigest: seal.DigestArguments(args), Principal: bind.Principal, Audience: bind.Audience}
}

// splitPreviewToken returns the token argument of raw, if any, and the
// arguments without it.
func splitPreviewToken(raw json.RawMessage) (token string, present bool, rest json.RawMessage) {
	var args map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &args) != nil {
		return "", false, raw
	}
	v, ok := args[PreviewTokenArgument]
	if !ok {
		return "", false, raw
	}
	delete(args, PreviewTokenArgument)
	rest, _ = json.Marshal(args) // a map of raw values from valid JSON
	if json.Unmarshal(v, &token) != nil {
		return "", true, rest // present, and not a string: invalid
	}
	return token, true, rest
}

// errPreviewToken is the one refusal of a confirmation token.
func (c *call) errPreviewToken() *mcp.CallToolResult {
	return toolError(fmt.Sprintf("this %s is not valid for these arguments: it has expired, was already used, or was made for other arguments or another user; call %s again without it for a new preview",
		PreviewTokenArgument, c.m.tool))
}

// claimTTL is how long the ReplayGuard remembers the claim of a flow's
// identity: as long as a state of the flow, or a confirmation token
// naming it, may still open (ToolOptions.TTL or PreviewTTL, the longer).
func (m *Machine) claimTTL() time.Duration { return max(m.opts.TTL, m.opts.PreviewTTL) }

// hasPreview reports whether step j is settled by a preview when the
// request cannot show it.
func (m *Machine) hasPreview(j int) bool {
	s := &m.steps[j]
	return s.Once && s.Fallback == FallbackPreview && s.Accept != nil && s.yes(s.Accept) && m.flow.Preview != nil
}

// previewArgs splits the call's arguments: the confirmation token, if
// present, and the binding of a token for the other arguments.
func (c *call) previewArgs() (token string, present bool, bind seal.Binding) {
	token, present, rest := splitPreviewToken(c.req.Params.Arguments)
	return token, present, previewBinding(c.m.tool, c.bind, rest)
}

// openPreview opens token under bind: its grant, and whether it is a
// valid token for step j of this release's questions. A token that is
// valid but was made for other questions (another release of the tool)
// is not: other is then true.
func (c *call) openPreview(bind seal.Binding, token string, j int) (g previewGrant, ok, other bool) {
	_, payload, _, why := c.m.keys.OpenReason(bind, token, c.now)
	if why != seal.NotRefused {
		c.refused(refuse.Token, why)
		return g, false, false
	}
	if json.Unmarshal(payload, &g) != nil || g.Flow == "" {
		return g, false, false
	}
	if g.Questions != c.m.questions {
		return g, false, true
	}
	return g, g.Step == j, false
}

// errPreviewChanged refuses a confirmation token that another release of
// the tool made, for other questions.
func (c *call) errPreviewChanged() *mcp.CallToolResult {
	return toolError(fmt.Sprintf("this %s was made by another version of %s, which asked something else: call %s again without it for a new preview",
		PreviewTokenArgument, c.m.tool, c.m.tool))
}

// preview settles Once step j, which the request cannot show, by its
// preview: without a token the call completes with the preview and a new
// token; with a valid token the step is answered with its Accept content
// and the flow takes the token's identity, to be claimed on completion.
func (c *call) preview(j int) (handled bool, res mcp.Result, err error) {
	m := c.m
	token, present, bind := c.previewArgs()
	if present {
		g, ok, other := c.openPreview(bind, token, j)
		if other {
			c.log().Info("elicitgen: confirmation token of another release of the tool refused")
			return true, c.errPreviewChanged(), nil
		}
		if !ok {
			c.log().Info("elicitgen: confirmation token refused")
			return true, c.errPreviewToken(), nil
		}
		c.st.ID, c.previewed = g.Flow, true
		c.st.Answers[j] = m.steps[j].Accept
		m.advance(&c.st)
		return true, nil, nil
	}
	text := m.flow.Preview(c.ctx, c.req, c.args, j, c.st.Answers)
	payload, err := json.Marshal(previewGrant{Flow: seal.NewFlowID(), Step: j, Questions: m.questions})
	if err != nil {
		return true, nil, ErrInternal
	}
	sealed, err := m.keys.Seal(bind, 0, payload, c.now, m.opts.PreviewTTL)
	if err != nil {
		c.log().Warn("elicitgen: cannot seal a confirmation token", "err", err)
		return true, nil, ErrInternal
	}
	return true, PreviewResult(m.tool, text, sealed, m.opts.PreviewTTL), nil
}

// spendPreview runs when step j is about to be asked of a request that can
// show it. If the step has a preview and the arguments carry a valid token
// for it, the token is used up before the step is first asked in this flow
// (an answer asked again does not spend it twice): its use's own identity
// is claimed, for as long as the token or the flow may live. handled is
// true when the call ends with (res, err): the token was already used, or
// the guard failed. An invalid token is ignored: the step is asked.
func (c *call) spendPreview(j int) (handled bool, res mcp.Result, err error) {
	m := c.m
	if t := c.st.Steps[j]; !m.hasPreview(j) || t.Asks > 0 || t.Tries > 0 {
		return false, nil, nil
	}
	token, present, bind := c.previewArgs()
	if !present {
		return false, nil, nil
	}
	g, ok, _ := c.openPreview(bind, token, j)
	if !ok {
		return false, nil, nil // another release's token too: the form is asked
	}
	first, err := m.opts.Replay.Claim(c.ctx, flowClaimID(m.tool, c.bind, g.Flow), m.claimTTL())
	if err != nil {
		c.storeError(err, "replay", "Claim")
		return true, nil, err
	}
	c.onceClaim(first, refuse.Token)
	if !first {
		return true, c.errPreviewToken(), nil
	}
	return false, nil, nil
}

// PreviewResult is the result of a previewed call: the preview text, then
// how to confirm, with the token, for the model and the person reading
// along.
func PreviewResult(tool, preview, token string, ttl time.Duration) *mcp.CallToolResult {
	how := fmt.Sprintf("This needs a confirmation that this client cannot ask for. To go ahead, call %s again with the same arguments plus %q: %q (valid once, for %s). To cancel, do nothing.",
		tool, PreviewTokenArgument, token, ttl)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: preview}, &mcp.TextContent{Text: how}}}
}
