package machine

import (
	"math"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's ClientCapabilities re-marshals _meta's capabilities and decodes
// them again on every call (a 32 KiB decoder buffer each time). The
// machine needs only the elicitation modes, so it reads them from the
// decoded JSON itself when it can tell, without doubt, what the SDK's
// decode would give: go-sdk v1.8.0 decodes the value into its client
// capabilities struct with exact member names, and when that decode fails
// it answers the session's capabilities instead. So the direct read
// answers only for a JSON object whose members the struct reads all have
// types that decode, and leaves anything else to the SDK.

// capsMembers are the members of go-sdk v1.8.0's client capabilities
// struct (clientCapabilitiesV2) that hold objects, and for each, the
// members of that object the struct reads with their JSON kind
// ("object" for an empty struct, "bool"). Members not listed are ignored
// by the SDK's decode.
var capsMembers = map[string]map[string]string{
	"experimental": nil, // map[string]any
	"extensions":   nil, // map[string]any
	"roots":        {"listChanged": "bool"},
	"sampling":     {"context": "object", "tools": "object"},
	"elicitation":  {"form": "object", "url": "object"},
}

// metaElicitation reads the elicitation capability from meta, a request's
// _meta: e is nil when the request declared none. ok is false when the
// SDK must be asked (capabilities absent, null, not plain decoded JSON,
// or of a shape the SDK's decode would refuse).
func metaElicitation(meta map[string]any) (e *mcp.ElicitationCapabilities, ok bool) {
	caps, isObject := meta[mcp.MetaKeyClientCapabilities].(map[string]any)
	if !isObject || !plainJSON(caps, 0) {
		return nil, false
	}
	for name, members := range capsMembers {
		if !decodesAs(caps[name], members) {
			return nil, false
		}
	}
	el, _ := caps["elicitation"].(map[string]any)
	if el == nil {
		return nil, true
	}
	e = &mcp.ElicitationCapabilities{}
	if el["form"] != nil {
		e.Form = &mcp.FormElicitationCapabilities{}
	}
	if el["url"] != nil {
		e.URL = &mcp.URLElicitationCapabilities{}
	}
	return e, true
}

// decodesAs reports whether v, a member of the capabilities, certainly
// decodes into a pointer to a struct (or a map) whose members are members:
// null, or an object whose listed members are null or of their kind.
func decodesAs(v any, members map[string]string) bool {
	if v == nil {
		return true
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for name, kind := range members {
		switch m := obj[name]; m.(type) {
		case nil:
		case map[string]any:
			if kind != "object" {
				return false
			}
		case bool:
			if kind != "bool" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// plainJSON reports whether v holds only what a JSON decode into any
// produces (objects, arrays, strings, finite numbers, booleans, null),
// nested at most 64 deep, so that the SDK's re-marshal of it succeeds.
func plainJSON(v any, depth int) bool {
	if depth > 64 {
		return false
	}
	switch x := v.(type) {
	case nil, string, bool:
		return true
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case map[string]any:
		for _, m := range x {
			if !plainJSON(m, depth+1) {
				return false
			}
		}
		return true
	case []any:
		for _, m := range x {
			if !plainJSON(m, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}
