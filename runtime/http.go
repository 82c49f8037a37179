package runtime

import (
	"log/slog"
	"time"
)

// HTTPOptions configures an [HTTPHandler]. The zero value is ready to use.
// Each field is passed to both inner SDK handlers (see
// [mcp.StreamableHTTPOptions]) unless it says otherwise.
type HTTPOptions struct {
	// Logger receives the SDK's transport logs and, at debug level, one
	// "mcp route" record per request. Nil means no logging.
	Logger *slog.Logger

	// JSONResponse makes POST responses application/json instead of
	// text/event-stream. On legacy sessions the SDK then sends server-to-client
	// requests (elicitation/create) on the session's standalone GET stream, so
	// a legacy client that never opens that stream cannot be asked anything.
	JSONResponse bool

	// SessionTimeout closes legacy (2025-11-25) sessions with no request
	// for this long, and ends the questions waiting on them. Zero means
	// [DefaultSessionTimeout] (10 minutes); a negative value keeps sessions
	// until the client sends DELETE, so that a client that goes away
	// without one leaves its session (a goroutine and its buffers) for the
	// life of the process. Modern requests have no session.
	SessionTimeout time.Duration

	// MaxSessionsPerPrincipal bounds the legacy sessions one principal
	// (the verified bearer token's UserID) holds at once: a session counts
	// until its DELETE or its SessionTimeout of idleness, and an initialize
	// over the bound gets 429 Too Many Requests, with Retry-After and a
	// JSON-RPC error naming the bound. Zero means
	// [DefaultMaxSessionsPerPrincipal] (64); a negative value means no
	// bound. Sessions opened without a token are bounded by the next two.
	MaxSessionsPerPrincipal int

	// MaxAnonymousSessionsPerAddress bounds the legacy sessions opened
	// without a token from one client address (the host of the request's
	// RemoteAddr; an IPv6 address by its /64 prefix), as
	// MaxSessionsPerPrincipal does for a principal: over it, 429. Zero
	// means [DefaultMaxAnonymousSessionsPerAddress] (64); a negative value
	// means no bound. Behind a reverse proxy every client has the proxy's
	// address, so that the bound is shared by all of them: set it
	// negative there (and bound clients at the proxy), leaving
	// MaxAnonymousSessions.
	MaxAnonymousSessionsPerAddress int

	// MaxAnonymousSessions bounds all the legacy sessions opened without
	// a token. When it is reached, the anonymous session idle longest (no
	// request running, no question waiting) is closed to make room, as
	// its DELETE would; when none is idle, the initialize gets 429. Zero
	// means [DefaultMaxAnonymousSessions] (2048); a negative value means
	// no bound. Keep it below MaxSessions, so that anonymous clients never
	// take the places authenticated users need.
	MaxAnonymousSessions int

	// MaxSessions bounds all legacy sessions. When it is reached, an
	// initialize closes the anonymous session idle longest, as above;
	// when none is idle, it gets 429 (authenticated sessions are never
	// closed to make room). Zero means [DefaultMaxSessions] (4096); a
	// negative value means no bound.
	MaxSessions int

	// MaxRequestBodyBytes bounds every request body: the copy the router
	// reads to decide the route and the reads of both inner SDK handlers.
	// Zero means [DefaultMaxRequestBodyBytes] (256 KiB); a negative value
	// means no limit. Bodies over the limit get 413 Request Entity Too Large
	// and reach no server code.
	MaxRequestBodyBytes int64

	// AllowedOrigins, when not empty, is the list of browser origins
	// ("https://app.example.com": scheme, host and port if not the default,
	// no path; compared case-insensitively, a trailing "/" ignored) allowed
	// to reach the endpoint. A request whose Origin header is not in the list
	// gets 403 Forbidden before any handler runs or its body is read, on
	// every method and both routes; "null" (sandboxed frames, file: pages)
	// passes only if listed. Requests without an Origin header, which is what
	// non-browser MCP clients send, pass. The MCP transport specification
	// requires servers to validate Origin; this is the list to validate it
	// against. Empty (the default) checks nothing here, and the SDK's
	// localhost protection still applies (see DisableLocalhostProtection).
	AllowedOrigins []string

	// DisableLocalhostProtection turns off the SDK's DNS-rebinding check
	// (a request reaching a loopback address with a non-loopback Host header
	// gets 403). Only for servers behind a proxy that rewrites Host.
	DisableLocalhostProtection bool
}

// DefaultMaxRequestBodyBytes is the body limit of an [HTTPHandler] when
// [HTTPOptions.MaxRequestBodyBytes] is zero: 256 KiB, where the SDK alone
// would accept 4 MiB. It is what the largest legitimate request needs, with
// room to spare: a tools/call retry carries one requestState (at most
// [seal.MaxStateLen], 64 KiB), the answers of one round (a form's content, which
// the next state must hold again, so in practice under another 64 KiB), the
// tool's arguments (bound into the state by digest; elicitgen tools take a
// few short fields) and the JSON-RPC envelope and _meta (well under 1 KiB).
// A 2025-11-25 client's answer to elicitation/create is smaller still. That
// sums to about 130 KiB; twice that leaves room for JSON escaping and larger
// arguments without letting a client make the server buffer megabytes per
// request. Set MaxRequestBodyBytes explicitly if your own tools take large
// arguments.
const DefaultMaxRequestBodyBytes = 256 << 10

// DefaultSessionTimeout is the idle timeout of legacy sessions when
// [HTTPOptions.SessionTimeout] is zero: 10 minutes, the same as
// [DefaultLegacyAnswerWait], so that idleness never ends a question a
// person is still answering before its own wait does, while a session a
// client abandoned (without DELETE) holds its memory for 10 minutes rather
// than for the life of the process.
const DefaultSessionTimeout = 10 * time.Minute

// Bounds on the legacy (2025-11-25) sessions an HTTPHandler holds. Each is
// what its HTTPOptions field means when zero; docs/security/hardening-http.md says
// how they were sized: an idle session that only initialized holds a
// goroutine and about 9 KiB of heap and stack (measured on
// examples/deploy: 10,000 of them, 72 MiB), more once it is used.
const (
	// DefaultMaxSessionsPerPrincipal is the bound on the legacy sessions
	// one principal holds ([HTTPOptions.MaxSessionsPerPrincipal]): 64. A
	// client keeps one session, and one that reconnects without DELETE
	// leaves the old one for [DefaultSessionTimeout]; 64 leaves room for
	// several clients and reconnections, while one principal's idle
	// sessions hold at most about 1.2 MiB.
	DefaultMaxSessionsPerPrincipal = 64

	// DefaultMaxAnonymousSessionsPerAddress is the bound on the sessions
	// opened without a token from one client address
	// ([HTTPOptions.MaxAnonymousSessionsPerAddress]): 64, as for a
	// principal.
	DefaultMaxAnonymousSessionsPerAddress = 64

	// DefaultMaxAnonymousSessions is the bound on all the sessions opened
	// without a token ([HTTPOptions.MaxAnonymousSessions]): 2048, about
	// 18 MiB of idle sessions (22 MiB of RSS), leaving room for sessions
	// that hold more.
	DefaultMaxAnonymousSessions = 2048

	// DefaultMaxSessions is the bound on all legacy sessions
	// ([HTTPOptions.MaxSessions]): 4096, about 40 MiB idle; with
	// [DefaultMaxAnonymousSessions] below it, 2048 places are left to
	// authenticated users whatever anonymous clients do.
	DefaultMaxSessions = 4096
)
