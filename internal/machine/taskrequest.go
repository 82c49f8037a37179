package machine

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What a task keeps of the tools/call that created it. The SDK's request
// (its session, its params with inputResponses and requestState, its
// _meta decoded into maps with room for 64 entries each, its headers)
// ends with the CreateTaskResult; a task waiting an hour for its answer
// keeps only what its rounds and its Run read: the tool's name and
// arguments, of _meta the client's capabilities and protocol version, and
// in its first run the bearer token's info. A restarted run gets the same
// request from the record, without the token.

// keptCall is the creating call's params a task keeps, as JSON: the name,
// the arguments, and of _meta the client's capabilities and protocol
// version. A restartable task's record keeps them (TaskReplay.Call).
func keptCall(req *mcp.CallToolRequest) (json.RawMessage, error) {
	p := &mcp.CallToolParamsRaw{Name: req.Params.Name, Arguments: req.Params.Arguments}
	if meta := req.Params.GetMeta(); meta != nil {
		keep := map[string]any{}
		for _, k := range []string{mcp.MetaKeyClientCapabilities, mcp.MetaKeyProtocolVersion} {
			if v, ok := meta[k]; ok {
				keep[k] = v
			}
		}
		p.SetMeta(keep)
	}
	return json.Marshal(p)
}

// taskView is the request of a task's rounds and Run: its kept call (see
// keptCall) and token (nil after a restart); no session. Its _meta keeps
// each value as its JSON (a string as a string), which the SDK decodes
// when asked; the rounds read the capabilities' elicitation modes,
// decoded once.
func taskView(call json.RawMessage, token *auth.TokenInfo) (*request, error) {
	var kept struct {
		Name      string                     `json:"name"`
		Arguments json.RawMessage            `json:"arguments,omitempty"`
		Meta      map[string]json.RawMessage `json:"_meta,omitempty"`
	}
	if err := json.Unmarshal(call, &kept); err != nil {
		return nil, err
	}
	p := &mcp.CallToolParamsRaw{Name: kept.Name, Arguments: kept.Arguments}
	if kept.Meta != nil {
		p.Meta = make(mcp.Meta, len(kept.Meta))
		for k, raw := range kept.Meta {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				p.Meta[k] = s
			} else {
				p.Meta[k] = raw
			}
		}
	}
	req := &mcp.CallToolRequest{Params: p}
	if token != nil {
		req.Extra = &mcp.RequestExtra{TokenInfo: token}
	}
	v := toolView(req)
	v.caps, v.capsRead = askCaps(req.ClientCapabilities()), true
	return v, nil
}

// askCaps is what a task's rounds read of caps: the elicitation modes
// (canShow, the fallbacks' log).
func askCaps(caps *mcp.ClientCapabilities) *mcp.ClientCapabilities {
	if caps == nil {
		return nil
	}
	return &mcp.ClientCapabilities{Elicitation: caps.Elicitation}
}

// tokenOf is the bearer token's info of the call's request, nil if none.
func (c *call) tokenOf() *auth.TokenInfo {
	if c.req.Extra == nil {
		return nil
	}
	return c.req.Extra.TokenInfo
}
