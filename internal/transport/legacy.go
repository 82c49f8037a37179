package transport

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Legacy sessions: what an HTTPHandler knows of each 2025-11-25 session, so
// that the questions internal/machine asks on one (elicitLegacy) end when
// the session is deleted or idle. The session is the machine's LegacyAsks
// hook, carried in the context of the session's calls.

// legacySession is what an HTTPHandler knows of one 2025-11-25 session:
// the questions waiting for an answer on it, and when it was last used.
type legacySession struct {
	idle time.Duration // HTTPOptions.SessionTimeout; 0: none
	// user is the UserID of the verified token that opened the session
	// ("" without one): the SDK closes the session only for that user.
	user string

	mu       sync.Mutex
	asks     map[int]context.CancelFunc
	next     int
	timer    *time.Timer // runs while asks wait and idle > 0
	lastSeen time.Time
	closing  bool // its owner's DELETE is being served: no new question waits
	gone     bool // deleted, or never opened: not counted against its user
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
	return len(s.asks) == 0 && now.Sub(s.lastSeen) > d
}

// legacySessions are an HTTPHandler's 2025-11-25 sessions, by session id.
type legacySessions struct {
	idle time.Duration
	max  int // sessions per principal (legacybound.go); 0: none

	mu     sync.Mutex
	byID   map[string]*legacySession
	added  int
	byUser map[string][]*legacySession // by principal, when max > 0
}

// serve runs the legacy SDK handler for r: an initialize gets a new
// legacySession in its context (the SDK keeps the values of that context
// for the session's calls), recorded under the session id the SDK
// answers; a DELETE is served by serveDelete; any other request with a
// session id counts as activity.
func (ls *legacySessions) serve(next http.Handler, w http.ResponseWriter, r *http.Request, initialize bool) {
	id := r.Header.Get(httpSessionHeader)
	switch {
	case initialize:
		s := &legacySession{idle: ls.idle, lastSeen: time.Now()}
		if info := auth.TokenInfoFromContext(r.Context()); info != nil {
			s.user = info.UserID
		}
		if !ls.admit(s) {
			ls.refuseSession(w)
			return
		}
		next.ServeHTTP(w, r.WithContext(machine.WithLegacyAsks(r.Context(), s)))
		if id := w.Header().Get(httpSessionHeader); id != "" {
			ls.add(id, s)
		} else {
			s.markGone()
		}
		return
	case id != "" && r.Method == http.MethodDelete:
		ls.serveDelete(next, w, r, id)
		return
	case id != "":
		if s := ls.get(id); s != nil {
			s.touch(time.Now())
		}
	}
	next.ServeHTTP(w, r)
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
	if ls.added++; ls.added%256 == 0 && ls.idle > 0 {
		// Sessions the SDK closed for idleness never say so: forget them.
		now := time.Now()
		for id, s := range ls.byID {
			if s.idleSince(now, 2*ls.idle) {
				delete(ls.byID, id)
			}
		}
		ls.pruneUsers(now)
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
