package transport

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitgen/elicitgen/internal/machine"
)

// Legacy sessions: what an HTTPHandler knows of each 2025-11-25 session, so
// that the questions internal/machine asks on one (elicitLegacy) end when
// the session is deleted or idle, and so that their number is bounded
// (legacybound.go). The session is the machine's LegacyAsks
// hook, carried in the context of the session's calls.

// legacySession is what an HTTPHandler knows of one 2025-11-25 session:
// the questions waiting for an answer on it, and when it was last used.
type legacySession struct {
	idle time.Duration // HTTPOptions.SessionTimeout; 0: none
	// user is the UserID of the verified token that opened the session
	// ("" without one): the SDK closes the session only for that user.
	user string
	// addr is the client address (clientAddress) of a session opened
	// without a token, which bounds such sessions per address.
	addr string

	// id is the session's id, once the SDK answered its initialize.
	id string

	mu       sync.Mutex
	asks     map[int]context.CancelFunc
	next     int
	timer    *time.Timer // runs while asks wait and idle > 0
	lastSeen time.Time   // the start or end of its last request
	inflight int         // its POSTs running (its initialize included)
	closing  bool        // its owner's DELETE, or its eviction, is being served: no new question waits
	gone     bool        // deleted, evicted, or never opened: not counted against the bounds
}

// Pending registers the wait of one question; done unregisters it.
func (s *legacySession) Pending(cancel context.CancelFunc) (done func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		cancel()
		return func() {}
	}
	if s.asks == nil {
		s.asks = map[int]context.CancelFunc{}
	}
	id := s.next
	s.next++
	s.asks[id] = cancel
	if s.idle > 0 && s.timer == nil {
		s.timer = time.AfterFunc(s.idle, s.end)
	}
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.asks, id)
		if len(s.asks) == 0 && s.timer != nil {
			s.timer.Stop()
			s.timer = nil
		}
	}
}

// touch records a request on the session.
func (s *legacySession) touch(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastSeen = now
	if s.timer != nil {
		s.timer.Reset(s.idle)
	}
}

// end cancels every question waiting on the session.
func (s *legacySession) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cancel := range s.asks {
		cancel()
	}
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
}

// closeAsks marks the session closing and ends its waiting questions;
// reopen undoes the mark.
func (s *legacySession) closeAsks() {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.end()
}

func (s *legacySession) reopen() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = false
}

// ownedBy reports whether r comes from the session's principal, by the
// rule the SDK applies before it closes a session on DELETE.
func (s *legacySession) ownedBy(r *http.Request) bool {
	if s.user == "" {
		return true
	}
	info := auth.TokenInfoFromContext(r.Context())
	return info != nil && info.UserID == s.user
}

// idleSince reports whether the session has had no request and no waiting
// question for longer than d.
func (s *legacySession) idleSince(now time.Time, d time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.busyLocked() && now.Sub(s.lastSeen) > d
}

// legacySessions are an HTTPHandler's 2025-11-25 sessions, by session id.
type legacySessions struct {
	idle   time.Duration
	bounds sessionBounds // legacybound.go
	// closer is the SDK's stateful handler, which closes the sessions
	// evicted to make room (legacybound.go's evict).
	closer http.Handler
	logger *slog.Logger

	mu    sync.Mutex
	byID  map[string]*legacySession
	added int
	// The sessions counted against each bound that is set (pruned of
	// those that ended when a bound seems reached, and every 256
	// sessions): all of them, those without a principal, by principal,
	// and those without a principal by client address.
	all    []*legacySession
	anon   []*legacySession
	byUser map[string][]*legacySession
	byAddr map[string][]*legacySession
}

// serve runs the legacy SDK handler for r: an initialize (a request
// with JSON-RPC id initID) is served by serveInitialize; a DELETE by
// serveDelete; any other request with a session id counts as activity,
// a POST as the session's request in flight until it ends.
func (ls *legacySessions) serve(next http.Handler, w http.ResponseWriter, r *http.Request, initialize bool, initID jsonrpc.ID) {
	id := r.Header.Get(httpSessionHeader)
	switch {
	case initialize:
		ls.serveInitialize(next, w, r, initID)
		return
	case id != "" && r.Method == http.MethodDelete:
		ls.serveDelete(next, w, r, id)
		return
	case id != "" && r.Method == http.MethodPost:
		if s := ls.get(id); s != nil {
			s.startRequest(time.Now())
			defer func() { s.endRequest(time.Now()) }()
		}
	case id != "":
		if s := ls.get(id); s != nil {
			s.touch(time.Now())
		}
	}
	next.ServeHTTP(w, r)
}

// serveInitialize gives an initialize a new legacySession in its context
// (the SDK keeps the values of that context for the session's calls),
// once the bounds admit it (legacybound.go), and records it under the
// session id the SDK answers.
func (ls *legacySessions) serveInitialize(next http.Handler, w http.ResponseWriter, r *http.Request, initID jsonrpc.ID) {
	now := time.Now()
	s := &legacySession{idle: ls.idle, lastSeen: now, inflight: 1}
	if info := auth.TokenInfoFromContext(r.Context()); info != nil {
		s.user = info.UserID
	} else {
		s.addr = clientAddress(r)
	}
	ls.mu.Lock()
	evicted, refused := ls.admit(s, now)
	ls.mu.Unlock()
	if refused != nil {
		ls.refuse(w, initID, refused)
		return
	}
	ls.evict(r, evicted)
	next.ServeHTTP(w, r.WithContext(machine.WithLegacyAsks(r.Context(), s)))
	if id := w.Header().Get(httpSessionHeader); id != "" {
		ls.add(id, s)
	} else {
		s.markGone()
	}
	s.endRequest(time.Now())
}

// serveDelete serves the DELETE of session id. The SDK's close of a
// session waits for its running calls, so the questions waiting on it
// must end first, but only when the SDK will close it: a DELETE from
// another principal (which the SDK refuses with 403) changes nothing.
// The session is forgotten once the SDK answered 2xx (or 404: it no
// longer knows it); otherwise it asks again as before.
func (ls *legacySessions) serveDelete(next http.Handler, w http.ResponseWriter, r *http.Request, id string) {
	s := ls.get(id)
	if s == nil || !s.ownedBy(r) {
		next.ServeHTTP(w, r)
		return
	}
	s.closeAsks()
	sw := &statusWriter{ResponseWriter: w}
	next.ServeHTTP(sw, r)
	if sw.status/100 == 2 || sw.status == http.StatusNotFound {
		ls.remove(id)
		s.markGone()
		return
	}
	s.reopen()
}

// statusWriter records the status a handler answers with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (ls *legacySessions) add(id string, s *legacySession) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.byID == nil {
		ls.byID = map[string]*legacySession{}
	}
	ls.byID[id] = s
	s.mu.Lock()
	s.id = id
	s.mu.Unlock()
	if ls.added++; ls.added%256 == 0 {
		// Sessions the SDK closed for idleness never say so: forget them.
		now := time.Now()
		for id, s := range ls.byID {
			if ls.idle > 0 && s.idleSince(now, 2*ls.idle) {
				delete(ls.byID, id)
			}
		}
		ls.pruneAll(now)
	}
}

func (ls *legacySessions) get(id string) *legacySession {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.byID[id]
}

func (ls *legacySessions) remove(id string) *legacySession {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	s := ls.byID[id]
	delete(ls.byID, id)
	return s
}
