package signin

import (
	"encoding/json"
	"time"

	"github.com/elicitgen/elicitgen/internal/seal"
)

// signInState is the state passed to the third party, sealed: the flow,
// the SHA-256 of the nonce in the cookie of the browser that started the
// sign-in, and the link it started from (path and query), to start again.
type signInState struct {
	Flow      seal.FlowWire `json:"f"`
	NonceHash []byte        `json:"h"`
	Link      string        `json:"l"`
}

// The bindings of the sign-in state, the nonce cookie and the result page:
// none opens as another, as a flow token or as a requestState, nor under
// another audience.
func signInStateBinding(audience string) seal.Binding {
	return seal.Binding{Tool: "elicitgen/connect-state", Audience: audience}
}

func nonceBinding(audience string) seal.Binding {
	return seal.Binding{Tool: "elicitgen/connect-nonce", Audience: audience}
}

func resultBinding(audience string) seal.Binding {
	return seal.Binding{Tool: "elicitgen/connect-result", Audience: audience}
}

// seal seals v as JSON under b for FlowTTL.
func (c *connect) seal(b seal.Binding, v any, now time.Time) (string, error) {
	payload, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return (*seal.Keyring)(c.opts.Keys).Seal(b, 0, payload, now, c.opts.FlowTTL)
}

// maxSealedLen bounds a sealed state or result read from a URL: a state
// carries a link, itself carrying a flow token.
const maxSealedLen = 3 * seal.MaxFlowTokenLen

// open opens what seal sealed under b into v: seal.NotRefused, or why it
// does not open.
func (c *connect) open(b seal.Binding, sealed string, v any) seal.Refusal {
	if len(sealed) > maxSealedLen {
		return seal.RefusedTampered
	}
	_, payload, _, why := (*seal.Keyring)(c.opts.Keys).OpenReason(b, sealed, c.opts.Now())
	if why == seal.NotRefused && json.Unmarshal(payload, v) != nil {
		why = seal.RefusedTampered
	}
	return why
}

// refused logs (refuse.Log: at Warn, rate-limited) that what the browser
// brought, of kind what, was refused and why; the page says only that the
// link is not valid.
func (c *connect) refused(what string, why seal.Refusal) {
	c.refusals.Refused(c.opts.Logger, what, "", why)
}
