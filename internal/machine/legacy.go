package machine

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A 2025-11-25 client has no retry to come back with: the machine asks it
// with a server-to-client elicitation/create and waits for the answer
// inside the tools/call. This file bounds that wait and makes it behave as
// a 2026-07-28 round does:
//
//   - the wait ends after ToolOptions.LegacyAnswerWait;
//   - on an HTTPHandler, it also ends when the session's own principal
//     deletes it (another's DELETE, which the SDK refuses, changes
//     nothing), or when no request arrives on the session for
//     HTTPOptions.SessionTimeout (the SDK pauses its own idle timer while
//     a call runs, and its session Close waits for running calls: without
//     this a DELETE would wait for an answer that never comes);
//   - the SDK's own check of the answer against the requested schema is
//     left to the form's decoder, so that an invalid answer is asked
//     again with the reason, as in a 2026-07-28 round, instead of ending
//     the call with the SDK's error.

// errNoAnswer is the error of a question that got no answer in time, or
// whose session ended first.
var errNoAnswer = errors.New("no answer")

// elicitLegacy asks params on the 2025-11-25 session ss and waits for the
// answer, at most wait and no longer than the session lives.
func elicitLegacy(ctx context.Context, ss *mcp.ServerSession, params *mcp.ElicitParams, wait time.Duration) (*mcp.ElicitResult, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if s, ok := ctx.Value(legacySessionKey{}).(*legacySession); ok {
		defer s.pending(cancel)()
	}
	raw := new(rawAnswer)
	res, err := ss.Elicit(context.WithValue(ctx, rawAnswerKey{}, raw), params)
	if err != nil {
		if ctx.Err() != nil {
			return nil, errNoAnswer
		}
		return nil, err
	}
	if raw.content != nil {
		res.Content = raw.content
	}
	return res, nil
}

// rawAnswer carries the content of an elicitation result past the SDK's
// schema check (see keepRawAnswers).
type rawAnswer struct{ content map[string]any }

type rawAnswerKey struct{}

// keepRawAnswers is a sending middleware: for an elicitation/create that
// elicitLegacy sends, it moves the answer's content into the call's
// rawAnswer, so that the SDK skips its own schema check (it checks only
// non-nil content) and the form's decoder judges the answer. AddTool
// installs it with each tool: the innermost layer takes the content, and
// the others find none to take.
func keepRawAnswers(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		raw, ok := ctx.Value(rawAnswerKey{}).(*rawAnswer)
		if !ok || err != nil {
			return res, err
		}
		if er, ok := res.(*mcp.ElicitResult); ok && er != nil && er.Content != nil {
			raw.content, er.Content = er.Content, nil
		}
		return res, err
	}
}

type legacySessionKey struct{}

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

// pending registers the wait of one question; done unregisters it.
func (s *legacySession) pending(cancel context.CancelFunc) (done func()) {
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
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), legacySessionKey{}, s)))
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
