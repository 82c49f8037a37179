package transport

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	sdkjson "github.com/segmentio/encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/taskrun"
)

// What a 2025-11-25 session keeps of its initialize. go-sdk v1.8.0's
// ServerSession keeps the decoded params of its initialize for its life,
// capabilities' experimental and extensions maps and every clientInfo
// member included: 2048 sessions whose initialize carried 250 kB each held
// 1.8 GiB. The server reads of them only the protocol version, the
// elicitation modes (internal/machine, and the SDK's Elicit), the tasks
// extension's presence (machine.DeclaresTasks), the roots and sampling
// capabilities (the SDK's, a few booleans), the client's name and version
// (the fallback log) and _meta's traceparent and tracestate (telemetry of
// the initialize itself). So the router hands the SDK an initialize whose
// params hold only those, the strings cut to fixed lengths, and its
// session keeps nothing else. See docs/security/hardening-http.md.

// Lengths, in bytes, of what a session keeps of its initialize's strings.
const (
	// SessionClientNameBytes and SessionClientVersionBytes bound
	// clientInfo.name and clientInfo.version, cut as the log cuts them.
	SessionClientNameBytes    = machine.ClientNameBytes
	SessionClientVersionBytes = machine.ClientVersionBytes
	// sessionVersionBytes bounds protocolVersion: every version is 10
	// bytes, so a cut one still compares with each as the whole did.
	sessionVersionBytes = 32
	// sessionTraceBytes bounds each of _meta's trace keys (W3C: a
	// traceparent is 55 bytes, a tracestate at most 512).
	sessionTraceBytes = 1024
)

// sessionInit is an initialize's params as go-sdk v1.8.0 decodes them
// (its initializeParamsV2, with capabilities roots as a pointer), so that
// a decode into it fails exactly when the SDK's does.
type sessionInit struct {
	Meta            map[string]any      `json:"_meta,omitempty"`
	Capabilities    *sessionCaps        `json:"capabilities"`
	ClientInfo      *mcp.Implementation `json:"clientInfo"`
	ProtocolVersion string              `json:"protocolVersion"`
}

type sessionCaps struct {
	Experimental map[string]any `json:"experimental,omitempty"`
	Extensions   map[string]any `json:"extensions,omitempty"`
	//lint:ignore SA1019 a 2025-11-25 session may still be asked for roots
	Roots *mcp.RootCapabilities `json:"roots,omitempty"`
	//lint:ignore SA1019 or to sample
	Sampling    *mcp.SamplingCapabilities    `json:"sampling,omitempty"`
	Elicitation *mcp.ElicitationCapabilities `json:"elicitation,omitempty"`
}

// slimInitializeParams returns the params of an initialize as its session
// should keep them; ok is false when params must reach the SDK as they
// are: absent, null, or params its decoder refuses (it then answers the
// error, and keeps no session).
func slimInitializeParams(params json.RawMessage) (json.RawMessage, bool) {
	if len(params) == 0 {
		return nil, false
	}
	dec := sdkjson.NewDecoder(bytes.NewReader(params))
	dec.DontMatchCaseInsensitiveStructFields() // as the SDK's internal/json
	var p *sessionInit
	if err := dec.Decode(&p); err != nil || p == nil {
		return nil, false
	}
	p.slim()
	out, err := json.Marshal(p)
	return out, err == nil
}

// slim drops from p what the server never reads and cuts what it keeps.
func (p *sessionInit) slim() {
	p.ProtocolVersion = machine.CutClientWord(p.ProtocolVersion, sessionVersionBytes)
	var meta map[string]any
	for _, k := range []string{"traceparent", "tracestate"} {
		if v, ok := p.Meta[k].(string); ok && len(v) <= sessionTraceBytes {
			if meta == nil {
				meta = map[string]any{}
			}
			meta[k] = v
		}
	}
	p.Meta = meta
	if c := p.Capabilities; c != nil {
		_, tasks := c.Extensions[machine.TasksExtension]
		c.Experimental, c.Extensions = nil, nil
		if tasks {
			c.Extensions = map[string]any{machine.TasksExtension: map[string]any{}}
		}
	}
	if info := p.ClientInfo; info != nil {
		p.ClientInfo = &mcp.Implementation{
			Name:    machine.CutClientWord(info.Name, SessionClientNameBytes),
			Version: machine.CutClientWord(info.Version, SessionClientVersionBytes),
		}
	}
}

// slimInitializeBody is body (post's, which holds an initialize) with
// every initialize request's params slimmed (slimInitializeParams); ok is
// false when nothing changed.
func slimInitializeBody(body []byte, post *httpPost) ([]byte, bool) {
	if !post.batch {
		if len(post.reqs) != 1 {
			return nil, false
		}
		return slimInitializeMessage(post.reqs[0])
	}
	var raws []json.RawMessage
	if json.Unmarshal(body, &raws) != nil || nestedDeeper(body, sdkMaxDepth) {
		return nil, false // the SDK refuses the batch
	}
	changed := false
	for i, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		req, _ := msg.(*jsonrpc.Request)
		if err != nil || req == nil {
			continue
		}
		if slim, ok := slimInitializeMessage(req); ok {
			raws[i], changed = slim, true
		}
	}
	if !changed {
		return nil, false
	}
	out, err := json.Marshal(raws)
	return out, err == nil
}

// slimInitializeMessage is req, an initialize, encoded with its params
// slimmed; ok is false for another request or params left as they are.
func slimInitializeMessage(req *jsonrpc.Request) ([]byte, bool) {
	slim := *req
	if !SlimInitialize(&slim) {
		return nil, false
	}
	out, err := jsonrpc.EncodeMessage(&slim)
	return out, err == nil
}

// SlimInitialize gives req, when it is an initialize, the params its
// session should keep (see slimInitializeParams), and reports whether it
// did: what the stdio transport does with each message it reads, as the
// router does with each initialize it routes.
func SlimInitialize(req *jsonrpc.Request) bool {
	if req.Method != httpMethodInit {
		return false
	}
	params, ok := slimInitializeParams(req.Params)
	if ok {
		req.Params = params
	}
	return ok
}

// sdkMaxDepth is the nesting of JSON arrays and objects past which the
// SDK's decoder refuses a message (its internal/json).
const sdkMaxDepth = 1000

// nestedDeeper reports whether the arrays and objects of data, valid
// JSON, nest deeper than max.
func nestedDeeper(data []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case inString:
			inString = b != '"'
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			if depth++; depth > max {
				return true
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return false
}

// slimInitializeRequest gives r, which holds an initialize (post), the
// body slimInitializeBody makes of it, if it changes anything.
func slimInitializeRequest(r *http.Request, post *httpPost) {
	body, ok := slimInitializeBody(post.body, post)
	if !ok {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Del("Content-Length")
}

// loggingLevels are the levels of logging/setLevel, as MCP names RFC
// 5424's.
var loggingLevels = map[string]bool{"debug": true, "info": true, "notice": true, "warning": true,
	"error": true, "critical": true, "alert": true, "emergency": true}

// levelsChecked refuses, with HTTP 400 and -32602, a logging/setLevel
// whose params.level is not one of loggingLevels: go-sdk v1.8.0 keeps
// the level a session sets for the session's life, whatever it is (a
// 250 kB string as well). It reports whether the request may go on.
func levelsChecked(w http.ResponseWriter, post *httpPost) bool {
	for _, req := range post.reqs {
		if req.Method != methodSetLevel {
			continue
		}
		level, err := exactString(req.Params, "level", "params.level")
		if err != nil {
			writeBodyError(w, withID(err, req.ID))
			return false
		}
		if !loggingLevels[level] {
			taskrun.WriteJSONRPCError(w, http.StatusBadRequest, req.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: "invalid params: params.level must be one of debug, info, notice, warning, error, critical, alert, emergency"})
			return false
		}
	}
	return true
}

// methodSetLevel is the method whose level a session keeps.
const methodSetLevel = "logging/setLevel"
