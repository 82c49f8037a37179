package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/elicitgen/elicitgen/internal/taskrun"
	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Wire names used by the router. The SDK keeps its own copies unexported.
const (
	httpModernVersion   = "2026-07-28" // first protocol revision without sessions
	httpVersionHeader   = "Mcp-Protocol-Version"
	httpSessionHeader   = "Mcp-Session-Id"
	httpMethodHeader    = "Mcp-Method"
	httpNameHeader      = "Mcp-Name"
	httpMethodInit      = "initialize"
	httpMethodDiscover  = "server/discover"
	httpMetaProtocolKey = mcp.MetaKeyProtocolVersion
)

// HTTPRoute says which of the two inner handlers of an [HTTPHandler] serves
// a request.
type HTTPRoute uint8

const (
	// RouteModern is the stateless streamable handler: protocol 2026-07-28
	// and later (per-request _meta, no sessions, input_required results), and
	// one-shot requests that name no session.
	RouteModern HTTPRoute = iota + 1
	// RouteLegacy is the stateful streamable handler: protocol 2025-11-25 and
	// earlier (initialize, Mcp-Session-Id, server-to-client
	// elicitation/create requests on the session).
	RouteLegacy
)

// String returns "modern" or "legacy".
func (r HTTPRoute) String() string {
	switch r {
	case RouteModern:
		return "modern"
	case RouteLegacy:
		return "legacy"
	}
	return fmt.Sprintf("HTTPRoute(%d)", uint8(r))
}

// HTTPHandler is one MCP streamable HTTP endpoint that serves clients of
// both protocol eras by routing each request to one of two SDK handlers: a
// stateless one for the modern protocol (2026-07-28 and later) and a stateful
// one for the legacy protocol (2025-11-25 and earlier). See [NewHTTPHandler]
// for the routing rules.
type HTTPHandler struct {
	modern *mcp.StreamableHTTPHandler // Stateless: true
	legacy *mcp.StreamableHTTPHandler // Stateless: false
	// sessions end the questions waiting on legacy sessions that are
	// deleted or idle (see elicitLegacy).
	sessions *legacySessions
	maxBody  int64           // < 0: unlimited
	logger   *slog.Logger    // nil: no route logging
	origins  map[string]bool // nil: any Origin; keys as httpNormalOrigin
	// getServer, localhostProtection and hooks serve the requests
	// HTTPHandler serves itself (listen.go), which do not reach the SDK's
	// handlers.
	getServer           func(*http.Request) *mcp.Server
	localhostProtection bool
	hooks               Hooks
}

// NewHTTPHandler returns an [HTTPHandler] serving the servers that getServer
// returns, over one endpoint, to clients of both protocol eras.
//
// Why two inner handlers: go-sdk v1.8.0 accepts 2026-07-28 requests only on a
// stateless handler (a stateful one rejects them with -32022 and HTTP 400),
// while a stateless handler cannot send server-to-client requests, so a
// legacy client on it could never be asked for input. The SDK calls
// getServer on every request (to check the protocol version header) and again
// whenever it opens a session, which every modern request does (a throwaway
// one), so it should be cheap; it may return the same *mcp.Server every time,
// and returning nil answers 400.
//
// Routing rules, applied in order; the first that matches decides:
//
//  1. A request that is not a POST (GET opening or resuming a session's
//     stream, DELETE ending a session, anything else) is legacy. Only
//     sessions use GET and DELETE; the stateful handler answers 400 without
//     an Mcp-Session-Id, 404 for an unknown one, and 405 for other methods.
//  2. A POST whose Mcp-Protocol-Version header is >= "2026-07-28" (compared
//     as a string, like the SDK does) is modern, with or without an
//     Mcp-Session-Id (the stateful handler would reject it anyway). The
//     route does not depend on the body, which the router decodes only if
//     it may hold a request checked below.
//  3. Otherwise the router reads the body, at most MaxRequestBodyBytes of it
//     (413 if longer; 400 if it cannot be read), and puts an identical body
//     back for the chosen handler (but for an initialize's params, which
//     the legacy handler gets slimmed to what the server reads of them). A body that is a JSON-RPC batch is
//     searched message by message. A body holding an "initialize" request is
//     legacy: it creates a session.
//  4. A body holding a "server/discover" request, or a request whose
//     params._meta["io.modelcontextprotocol/protocolVersion"] is
//     >= "2026-07-28", is modern. (If such a request lacks the header, the
//     stateless handler answers 400 as SEP-2575 requires.)
//  5. A POST carrying an Mcp-Session-Id header is legacy: requests,
//     notifications and responses (answers to elicitation/create) of an
//     existing session. The stateful handler answers 404 for a session it
//     does not know (expired, deleted, or from another process), which tells
//     the client to initialize again.
//  6. Any other POST is modern: the stateless handler serves it as a one-shot
//     request. For a request without _meta (an old client that skips
//     initialize, or curl) the SDK makes up legacy session state (protocol
//     from the header, else 2025-03-26; no client capabilities), so the call
//     works but the server cannot ask the client anything; the stateful
//     handler could only have failed it ("invalid during session
//     initialization"). Bodies that are not JSON-RPC also land here and get
//     the SDK's 400.
//
// Whatever the route, the router reads a POST body as the SDK does (its
// decoder for the envelope, exact member names inside) and refuses, with
// HTTP 400, a body in which a member it reads appears twice or again in
// another letter case, a tasks/get, tasks/update or tasks/cancel whose
// Mcp-Name header is not its params.taskId (whatever the version headers
// say), and one of those in a batch. On the legacy route it also refuses,
// with 400 and -32602, a logging/setLevel of a level MCP does not name
// (the SDK would keep it for the session's life). See
// docs/security/hardening-http.md.
//
// The routes never change how the SDK treats a request once it is chosen:
// each inner handler checks Content-Type, Accept, the body limit, Host and
// the version header as it would alone. A token verifier (auth.RequireBearerToken)
// wrapping the returned handler reaches tool handlers of both routes as
// req.Extra.TokenInfo. Legacy sessions live in this process's memory, so
// behind a load balancer legacy clients need affinity on Mcp-Session-Id;
// modern requests may land on any replica.
func NewHTTPHandler(getServer func(*http.Request) *mcp.Server, opts *elicitrt.HTTPOptions, hooks Hooks) *HTTPHandler {
	if opts == nil {
		opts = &elicitrt.HTTPOptions{}
	}
	maxBody := opts.MaxRequestBodyBytes
	if maxBody == 0 {
		maxBody = DefaultMaxRequestBodyBytes
	}
	base := mcp.StreamableHTTPOptions{
		JSONResponse:               opts.JSONResponse,
		Logger:                     opts.Logger,
		MaxRequestBodyBytes:        maxBody, // the SDK too reads < 0 as no limit
		DisableLocalhostProtection: opts.DisableLocalhostProtection,
	}
	modern := base
	modern.Stateless = true
	legacy := base
	legacy.SessionTimeout = sessionTimeout(opts.SessionTimeout)

	var origins map[string]bool
	if len(opts.AllowedOrigins) > 0 {
		origins = make(map[string]bool, len(opts.AllowedOrigins))
		for _, o := range opts.AllowedOrigins {
			origins[httpNormalOrigin(o)] = true
		}
	}
	legacyHandler := mcp.NewStreamableHTTPHandler(getServer, &legacy)
	return &HTTPHandler{
		modern:  mcp.NewStreamableHTTPHandler(getServer, &modern),
		legacy:  legacyHandler,
		maxBody: maxBody,
		logger:  opts.Logger,
		sessions: &legacySessions{idle: legacy.SessionTimeout, bounds: newSessionBounds(opts),
			closer: legacyHandler, logger: opts.Logger},
		origins: origins,

		getServer:           getServer,
		localhostProtection: !opts.DisableLocalhostProtection,
		hooks:               hooks,
	}
}

// sessionTimeout is the idle timeout of legacy sessions for
// HTTPOptions.SessionTimeout d: 0 for none.
func sessionTimeout(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return DefaultSessionTimeout
	case d < 0:
		return 0
	}
	return d
}

// httpNormalOrigin is the comparable form of an origin: trimmed, lower
// case, no trailing slash.
func httpNormalOrigin(o string) string {
	return strings.ToLower(strings.TrimSuffix(strings.TrimSpace(o), "/"))
}

// ServeHTTP routes r to the modern or the legacy handler by the rules
// documented on [NewHTTPHandler].
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.origins != nil {
		if origin, ok := r.Header["Origin"]; ok && (len(origin) != 1 || !h.origins[httpNormalOrigin(origin[0])]) {
			if h.logger != nil {
				h.logger.WarnContext(r.Context(), "mcp origin refused", "origin", strings.Join(origin, ", "))
			}
			http.Error(w, "Forbidden: origin not allowed", http.StatusForbidden)
			return
		}
	}
	post, err := h.readPost(r)
	if err != nil {
		h.bodyError(w, err)
		return
	}
	if post != nil && !bodyChecked(w, r, post) {
		return
	}
	route, reason, err := routeOf(r, post)
	if err != nil {
		h.bodyError(w, err)
		return
	}
	if h.logger != nil {
		h.logger.DebugContext(r.Context(), "mcp route", "route", route.String(), "reason", reason,
			"method", r.Method, "protocolVersion", r.Header.Get(httpVersionHeader),
			"session", r.Header.Get(httpSessionHeader) != "")
	}
	if route == RouteLegacy {
		h.serveLegacy(w, r, post, reason == "initialize")
		return
	}
	if r.Header.Get(httpVersionHeader) >= httpModernVersion && r.Header.Get(httpMethodHeader) == httpMethodListen {
		if !h.rebindingSafe(w, r) || h.serveListen(w, r) {
			return
		}
	}
	h.modern.ServeHTTP(w, r)
}

// serveLegacy serves a request of the legacy route: what its session
// would keep for its life is bounded first (initslim.go), an initialize's
// params slimmed and a logging/setLevel's level checked.
func (h *HTTPHandler) serveLegacy(w http.ResponseWriter, r *http.Request, post *httpPost, initialize bool) {
	if post != nil {
		if !levelsChecked(w, post) {
			return
		}
		if initialize {
			slimInitializeRequest(r, post)
		}
	}
	h.sessions.serve(h.legacy, w, r, initialize, post.initializeID())
}

// rebindingSafe makes, for a request HTTPHandler serves itself, the
// DNS-rebinding check the SDK makes for its own (unless
// DisableLocalhostProtection): a request that reached a loopback address
// with a Host header that is not loopback gets 403. It reports whether
// the request may go on.
func (h *HTTPHandler) rebindingSafe(w http.ResponseWriter, r *http.Request) bool {
	if !h.localhostProtection {
		return true
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !httpLoopback(local.String()) || httpLoopback(r.Host) {
		return true
	}
	http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
	return false
}

// httpLoopback reports whether a host, with or without a port, is
// localhost or a loopback address.
func httpLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// route decides the route of r and says why in a few words. When it reads the
// body it replaces r.Body with an in-memory copy of the same bytes.
func (h *HTTPHandler) route(r *http.Request) (HTTPRoute, string, error) {
	post, err := h.readPost(r)
	if err != nil {
		return 0, "", err
	}
	return routeOf(r, post)
}

// routeOf decides the route of r, whose body holds post (nil: not a POST).
func routeOf(r *http.Request, post *httpPost) (HTTPRoute, string, error) {
	if post == nil {
		return RouteLegacy, "not POST", nil
	}
	if v := r.Header.Get(httpVersionHeader); v >= httpModernVersion {
		return RouteModern, "version header", nil
	}
	kind, err := httpScanBody(post.reqs)
	if err != nil {
		return 0, "", err
	}
	switch kind {
	case httpBodyInitialize:
		return RouteLegacy, "initialize", nil
	case httpBodyModern:
		return RouteModern, "discover or modern _meta", nil
	}
	if r.Header.Get(httpSessionHeader) != "" {
		return RouteLegacy, "session id", nil
	}
	return RouteModern, "sessionless", nil
}

// peekRequest reads r's body (within the limit, and puts it back for the
// SDK) as one JSON-RPC request: nil when it is something else (a batch, a
// response, not JSON-RPC), which the SDK judges. The error is the body's.
func (h *HTTPHandler) peekRequest(r *http.Request) (*jsonrpc.Request, error) {
	body, err := h.readBody(r)
	if err != nil {
		return nil, err
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return nil, nil
	}
	req, _ := msg.(*jsonrpc.Request)
	return req, nil
}

// bodyError answers a body that could not be read (writeBodyError).
func (h *HTTPHandler) bodyError(w http.ResponseWriter, err error) { writeBodyError(w, err) }

// writeBodyError answers a body that could not be read: 413 over the
// limit, 400 with -32602 when ambiguous, 400 otherwise.
func writeBodyError(w http.ResponseWriter, err error) {
	var tooBig *http.MaxBytesError
	var ambiguous *errAmbiguous
	if errors.As(err, &ambiguous) {
		taskrun.WriteJSONRPCError(w, http.StatusBadRequest, ambiguous.id, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: ambiguous.Error()})
		return
	}
	if errors.As(err, &tooBig) {
		http.Error(w, fmt.Sprintf("request body exceeds %d bytes", tooBig.Limit), http.StatusRequestEntityTooLarge)
		return
	}
	http.Error(w, "failed to read body", http.StatusBadRequest)
}

// readBody reads all of r.Body within the limit and restores it.
func (h *HTTPHandler) readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	src := io.Reader(r.Body)
	if h.maxBody > 0 {
		src = io.LimitReader(r.Body, h.maxBody+1)
	}
	body, err := readAllSized(src, r.ContentLength, h.maxBody)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	if h.maxBody > 0 && int64(len(body)) > h.maxBody {
		return nil, &http.MaxBytesError{Limit: h.maxBody}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}

// readAllSized is io.ReadAll of src into a buffer of the size the
// request declares (when within the limit), so that a body read whole
// takes one allocation; the buffer grows as io.ReadAll's would if src
// holds more.
func readAllSized(src io.Reader, declared, limit int64) ([]byte, error) {
	size := int64(512)
	if declared > 0 && (limit <= 0 || declared <= limit) {
		size = declared + 1 // room to see the end without growing
	}
	b := make([]byte, 0, size)
	for {
		n, err := src.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grow
		}
	}
}

// httpBodyKind is what the router learns from a POST body.
type httpBodyKind uint8

const (
	httpBodyOther      httpBodyKind = iota // nothing decisive (or not JSON-RPC)
	httpBodyInitialize                     // holds an initialize request
	httpBodyModern                         // holds server/discover or a request with modern _meta
)

// httpScanBody classifies the requests of a body. An initialize request
// anywhere in a batch wins over modern markers. The error is an ambiguous
// _meta (see exactMember).
func httpScanBody(reqs []*jsonrpc.Request) (httpBodyKind, error) {
	kind := httpBodyOther
	for _, req := range reqs {
		version, err := httpMetaVersion(req)
		switch {
		case err != nil:
			return 0, err
		case req.Method == httpMethodInit:
			return httpBodyInitialize, nil
		case req.Method == httpMethodDiscover, version >= httpModernVersion:
			kind = httpBodyModern
		}
	}
	return kind, nil
}

// NewHTTPServer returns an [http.Server] for an MCP endpoint (h, typically
// an [HTTPHandler] in a mux) at addr, with the timeouts and limits a server
// exposed to untrusted clients needs and that the zero http.Server lacks:
//
//   - ReadHeaderTimeout 10s: a client that trickles its headers (slowloris)
//     is dropped instead of holding a connection and goroutine for good.
//   - ReadTimeout 30s: the whole request, headers and body, must arrive
//     within it; a 256 KiB body ([DefaultMaxRequestBodyBytes]) needs under
//     9 KB/s. net/http clears the read deadline once the handler runs and
//     the body has been read, so it does not cut the long-lived responses
//     below.
//   - IdleTimeout 120s: keep-alive connections with no request are closed.
//   - MaxHeaderBytes 64 KiB (net/http's default is 1 MiB): room for a large
//     bearer token and the Mcp-* headers.
//   - No WriteTimeout, deliberately. It is a deadline on the whole response,
//     and on the 2025-11-25 path a response is an SSE stream that stays open
//     while a person answers elicitation/create (minutes), as does a legacy
//     session's GET stream. Those are bounded elsewhere: the legacy answer
//     wait and [HTTPOptions.SessionTimeout] on the MCP side, IdleTimeout and
//     the client's disconnect on the HTTP side. Modern (2026-07-28) requests
//     complete in one response and need no write deadline.
//
// Change any field before calling ListenAndServe (or Serve); serve TLS in
// production, or put the server behind a proxy that does.
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}

// The defaults of elicitrt.HTTPOptions, documented there.
const (
	DefaultMaxRequestBodyBytes            = elicitrt.DefaultMaxRequestBodyBytes
	DefaultSessionTimeout                 = elicitrt.DefaultSessionTimeout
	DefaultMaxSessionsPerPrincipal        = elicitrt.DefaultMaxSessionsPerPrincipal
	DefaultMaxAnonymousSessionsPerAddress = elicitrt.DefaultMaxAnonymousSessionsPerAddress
	DefaultMaxAnonymousSessions           = elicitrt.DefaultMaxAnonymousSessions
	DefaultMaxSessions                    = elicitrt.DefaultMaxSessions
)
