package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/taskrun"
)

// The router decides from POST bodies (the route, the Mcp-Name check of
// tasks/*, whether it serves a task status stream itself), and it must
// read the request the SDK will serve. go-sdk v1.8.0 decodes with exact
// member names; encoding/json matches them case-insensitively and lets
// the last duplicate win. So the envelope is decoded with the SDK's own
// decoder (jsonrpc.DecodeMessage), and a member the router reads inside
// it is read by exactMember, which refuses a body where encoding/json
// and the SDK could disagree. A body that the version header routes is
// decoded only when it may hold a request the router checks
// (mayHoldCheckedMethod). See docs/security/hardening-http.md.

// errAmbiguous is the error of a body in which a member the router reads
// appears twice, or again in another letter case: HTTP 400, -32602.
type errAmbiguous struct {
	id     jsonrpc.ID
	member string // its path, e.g. "params.taskId"
}

func (e *errAmbiguous) Error() string {
	return fmt.Sprintf("invalid params: %s appears more than once, or again in another letter case; send it once, spelled exactly", e.member)
}

// exactMember returns the value of the member of the JSON object obj named
// exactly name, nil when there is none or obj is not an object. Another
// member whose name equals name under case folding (what encoding/json
// would also match, Kelvin sign and long s included), or name twice, is
// an *errAmbiguous naming path.
func exactMember(obj json.RawMessage, name, path string) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	var val json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil // malformed: the SDK judges it
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil
		}
		if !strings.EqualFold(key, name) {
			continue
		}
		if key != name || val != nil {
			return nil, &errAmbiguous{member: path}
		}
		val = v
	}
	return val, nil
}

// exactString is the string member name of obj, "" when absent or not a
// string.
func exactString(obj json.RawMessage, name, path string) (string, error) {
	raw, err := exactMember(obj, name, path)
	var s string
	if raw != nil {
		_ = json.Unmarshal(raw, &s)
	}
	return s, err
}

// httpRequests are the JSON-RPC requests of a body, one message or a
// batch, as the SDK decodes them; messages that are not requests, or that
// it cannot decode, are left out (the SDK refuses those).
func httpRequests(body []byte) (reqs []*jsonrpc.Request, batch bool) {
	var raws []json.RawMessage // not body: decoding into it would overwrite body
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		batch = true
		if json.Unmarshal(body, &raws) != nil {
			return nil, true
		}
	} else {
		raws = []json.RawMessage{body}
	}
	for _, raw := range raws {
		if msg, err := jsonrpc.DecodeMessage(raw); err == nil {
			if req, ok := msg.(*jsonrpc.Request); ok {
				reqs = append(reqs, req)
			}
		}
	}
	return reqs, batch
}

// isTaskMethod reports whether method is one the Mcp-Name check covers.
func isTaskMethod(method string) bool {
	return method == taskrun.MethodTasksGet || method == taskrun.MethodTasksUpdate || method == taskrun.MethodTasksCancel
}

// httpPost is what the router reads of a POST body, once per request.
type httpPost struct {
	body  []byte // as read
	reqs  []*jsonrpc.Request
	batch bool
}

// initializeID is the JSON-RPC id of the body's initialize request: the
// zero ID when it holds none (or p is nil, not a POST).
func (p *httpPost) initializeID() jsonrpc.ID {
	if p == nil {
		return jsonrpc.ID{}
	}
	for _, req := range p.reqs {
		if req.Method == httpMethodInit {
			return req.ID
		}
	}
	return jsonrpc.ID{}
}

// readPost reads r's body (within the limit, and puts it back for the
// SDK) and decodes its requests, unless the version header routes it and
// it certainly holds no request bodyChecked reads (then reqs is empty);
// nil when r is not a POST.
func (h *HTTPHandler) readPost(r *http.Request) (*httpPost, error) {
	if r.Method != http.MethodPost {
		return nil, nil
	}
	body, err := h.readBody(r)
	if err != nil {
		return nil, err
	}
	if r.Header.Get(httpVersionHeader) >= httpModernVersion && !mayHoldCheckedMethod(body) {
		// The header decides the route (routeOf) and no request in the
		// body is one bodyChecked reads: nothing to decode.
		return &httpPost{body: body}, nil
	}
	reqs, batch := httpRequests(body)
	return &httpPost{body: body, reqs: reqs, batch: batch}, nil
}

// checkedMethods are the methods whose requests bodyChecked reads.
var checkedMethods = [][]byte{[]byte(taskrun.MethodTasksGet), []byte(taskrun.MethodTasksUpdate),
	[]byte(taskrun.MethodTasksCancel), []byte(httpMethodListen)}

// mayHoldCheckedMethod reports whether body may hold a request for one of
// checkedMethods, however the SDK's decoder reads it: false only when that
// is certain. A JSON string without a backslash decodes to its own bytes,
// so in a body without one, a method name can only be one that appears in
// it as it is; anything with an escape (\/, \u...) is decoded.
func mayHoldCheckedMethod(body []byte) bool {
	if bytes.IndexByte(body, '\\') >= 0 {
		return true
	}
	for _, m := range checkedMethods {
		if bytes.Contains(body, m) {
			return true
		}
	}
	return false
}

// bodyChecked makes the router's checks of a POST body, whatever its
// headers say, and reports whether the request may go on; when not, it
// has answered. A tasks/* request must carry Mcp-Name equal to its
// params.taskId, and cannot come in a batch; a subscriptions/listen must
// name its notifications unambiguously.
func bodyChecked(w http.ResponseWriter, r *http.Request, post *httpPost) bool {
	for _, req := range post.reqs {
		switch {
		case isTaskMethod(req.Method) && post.batch:
			taskrun.WriteJSONRPCError(w, http.StatusBadRequest, req.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: "invalid request: " + req.Method + " in a JSON-RPC batch; send task requests one per POST"})
			return false
		case isTaskMethod(req.Method):
			return taskNameMatches(w, r, req)
		case req.Method == httpMethodListen:
			if err := listenUnambiguous(req); err != nil {
				writeBodyError(w, err)
				return false
			}
		}
	}
	return true
}

// taskNameMatches makes the check SEP-2663 adds to SEP-2243's for the
// tasks methods, which go-sdk v1.8.0 does not make (it checks Mcp-Name only
// on tools/call, prompts/get and resources/read): a tasks/get, tasks/update
// or tasks/cancel request must carry Mcp-Name equal to params.taskId
// (surrounding whitespace ignored, RFC 9110 §5.5). A missing or different
// one gets HTTP 400 with JSON-RPC error -32020 (HeaderMismatch), as the
// SDK answers its own header mismatches; an ambiguous taskId, 400 with
// -32602.
func taskNameMatches(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
	id, err := exactString(req.Params, "taskId", "params.taskId")
	if err != nil {
		taskrun.WriteJSONRPCError(w, http.StatusBadRequest, req.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()})
		return false
	}
	name := strings.TrimSpace(r.Header.Get(httpNameHeader))
	var problem string
	switch {
	case name == "":
		problem = "missing required Mcp-Name header for method " + strconv.Quote(req.Method)
	case name != id:
		problem = "header mismatch: Mcp-Name header value does not match params.taskId"
	default:
		return true
	}
	taskrun.WriteJSONRPCError(w, http.StatusBadRequest, req.ID, &jsonrpc.Error{Code: mcp.CodeHeaderMismatch, Message: problem})
	return false
}

// listenUnambiguous checks the members of a subscriptions/listen that
// tasks.ServeListen reads (with encoding/json): params._meta,
// params.notifications and its taskIds.
func listenUnambiguous(req *jsonrpc.Request) error {
	if _, err := exactMember(req.Params, "_meta", "params._meta"); err != nil {
		return withID(err, req.ID)
	}
	notes, err := exactMember(req.Params, "notifications", "params.notifications")
	if err == nil {
		_, err = exactMember(notes, "taskIds", "params.notifications.taskIds")
	}
	return withID(err, req.ID)
}

// withID sets the request id of an *errAmbiguous, for its answer.
func withID(err error, id jsonrpc.ID) error {
	if e, ok := err.(*errAmbiguous); ok {
		e.id = id
	}
	return err
}

// httpMetaVersion returns params._meta's protocol version, or "".
func httpMetaVersion(req *jsonrpc.Request) (string, error) {
	meta, err := exactMember(req.Params, "_meta", "params._meta")
	if err != nil {
		return "", withID(err, req.ID)
	}
	v, err := exactString(meta, httpMetaProtocolKey, "params._meta."+httpMetaProtocolKey)
	return v, withID(err, req.ID)
}
