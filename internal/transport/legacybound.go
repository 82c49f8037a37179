package transport

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"time"

	"github.com/elicitgen/elicitgen/internal/taskrun"
	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Names of the session bounds, in the data of a refusal (as those of
// machine's task bounds, whose code machine.CodeTaskLimit it has).
const (
	LimitSessionsPerPrincipal        = "sessionsPerPrincipal"
	LimitAnonymousSessionsPerAddress = "anonymousSessionsPerAddress"
	LimitAnonymousSessions           = "anonymousSessions"
	LimitSessions                    = "sessions"
)

// Retry-After of a refusal by a bound none of whose sessions can be
// closed (all busy), and of one when sessions never expire.
const (
	busyRetryAfter      = 5 * time.Second
	noTimeoutRetryAfter = time.Minute
)

// sessionBounds are an HTTPHandler's session bounds, each 0 for none.
type sessionBounds struct {
	perUser, perAddr, anon, total int
}

// newSessionBounds reads the bounds of opts.
func newSessionBounds(opts *elicitrt.HTTPOptions) sessionBounds {
	return sessionBounds{
		perUser: orBound(opts.MaxSessionsPerPrincipal, DefaultMaxSessionsPerPrincipal),
		perAddr: orBound(opts.MaxAnonymousSessionsPerAddress, DefaultMaxAnonymousSessionsPerAddress),
		anon:    orBound(opts.MaxAnonymousSessions, DefaultMaxAnonymousSessions),
		total:   orBound(opts.MaxSessions, DefaultMaxSessions),
	}
}

// orBound is the bound for option n: def for 0, 0 (none) below it.
func orBound(n, def int) int {
	switch {
	case n == 0:
		return def
	case n < 0:
		return 0
	}
	return n
}

// clientAddress is the key of a session without a principal: the host of
// r.RemoteAddr, an IPv6 address by its /64 prefix (what one client is
// usually given).
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil || ip.To4() != nil {
		return host
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// live reports whether the session still counts against the bounds: not
// deleted, evicted or failed, and busy or with a request within the idle
// timeout (after which the SDK closes it).
func (s *legacySession) live(now time.Time, idle time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.gone && (idle <= 0 || s.busyLocked() || now.Sub(s.lastSeen) <= idle)
}

// busyLocked: a request of the session runs or a question waits on it;
// s.mu is held.
func (s *legacySession) busyLocked() bool { return s.inflight > 0 || len(s.asks) > 0 }

// idleFor is how long the session has had no request and no waiting
// question; ok is false when it is busy, gone or closing.
func (s *legacySession) idleFor(now time.Time) (d time.Duration, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone || s.closing || s.id == "" || s.busyLocked() {
		return 0, false
	}
	return now.Sub(s.lastSeen), true
}

func (s *legacySession) markGone() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gone = true
}

// startRequest and endRequest bracket a POST of the session: while one
// runs the session is busy (the SDK pauses its idle timer too), and its
// end counts as the session's last activity.
func (s *legacySession) startRequest(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight++
	s.lastSeen = now
}

func (s *legacySession) endRequest(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight--
	s.lastSeen = now
	if s.timer != nil {
		s.timer.Reset(s.idle)
	}
}

// prune is the sessions of list that still count, in order.
func (ls *legacySessions) prune(list []*legacySession, now time.Time) []*legacySession {
	live := list[:0]
	for _, s := range list {
		if s.live(now, ls.idle) {
			live = append(live, s)
		}
	}
	clear(list[len(live):])
	return live
}

// full prunes *list when it holds max sessions or more and reports
// whether it still does; max 0 is no bound.
func (ls *legacySessions) full(list *[]*legacySession, max int, now time.Time) bool {
	if max <= 0 || len(*list) < max {
		return false
	}
	*list = ls.prune(*list, now)
	return len(*list) >= max
}

// fullAt is full for the list of key in m, which it updates.
func (ls *legacySessions) fullAt(m map[string][]*legacySession, key string, max int, now time.Time) ([]*legacySession, bool) {
	list, ok := m[key]
	full := ls.full(&list, max, now)
	if ok {
		m[key] = list
	}
	return list, full
}

// refusal is why an initialize is refused: the bound, its value and when
// to try again.
type refusal struct {
	limit      string
	max        int
	retryAfter time.Duration
}

// admit counts s against the bounds that apply to it, making room by
// closing the anonymous sessions idle longest where an anonymous bound or
// the total is reached (evicted: they are out of the counts and byID, and
// the caller closes them), or says which bound refuses it. ls.mu is held.
func (ls *legacySessions) admit(s *legacySession, now time.Time) (evicted []*legacySession, refused *refusal) {
	b := ls.bounds
	if ls.byUser == nil {
		ls.byUser, ls.byAddr = map[string][]*legacySession{}, map[string][]*legacySession{}
	}
	if s.user != "" {
		if list, full := ls.fullAt(ls.byUser, s.user, b.perUser, now); full {
			return nil, ls.boundRefusal(LimitSessionsPerPrincipal, b.perUser, list, now)
		}
	} else {
		if list, full := ls.fullAt(ls.byAddr, s.addr, b.perAddr, now); full {
			return nil, ls.boundRefusal(LimitAnonymousSessionsPerAddress, b.perAddr, list, now)
		}
		if ls.full(&ls.anon, b.anon, now) {
			v := ls.oldestIdle(ls.anon, now)
			if v == nil {
				return nil, &refusal{LimitAnonymousSessions, b.anon, busyRetryAfter}
			}
			evicted = append(evicted, v)
		}
	}
	if ls.full(&ls.all, b.total, now) && len(ls.all)-len(evicted) >= b.total {
		v := ls.oldestIdle(ls.all, now, evicted...)
		if v == nil {
			for _, e := range evicted {
				e.reopen()
			}
			return nil, &refusal{LimitSessions, b.total, busyRetryAfter}
		}
		evicted = append(evicted, v)
	}
	ls.count(s)
	for _, v := range evicted {
		v.markGone()
		delete(ls.byID, v.id)
	}
	return evicted, nil
}

// count adds s to the lists of the bounds that apply to it; ls.mu is held.
func (ls *legacySessions) count(s *legacySession) {
	b := ls.bounds
	if b.total > 0 {
		ls.all = append(ls.all, s)
	}
	if s.user != "" {
		if b.perUser > 0 {
			ls.byUser[s.user] = append(ls.byUser[s.user], s)
		}
		return
	}
	if b.anon > 0 {
		ls.anon = append(ls.anon, s)
	}
	if b.perAddr > 0 {
		ls.byAddr[s.addr] = append(ls.byAddr[s.addr], s)
	}
}

// oldestIdle is the anonymous session of list idle longest, not one of
// except, marked closing so that no question starts waiting on it; nil
// when none is idle.
func (ls *legacySessions) oldestIdle(list []*legacySession, now time.Time, except ...*legacySession) *legacySession {
	var oldest *legacySession
	longest := time.Duration(-1)
next:
	for _, s := range list {
		for _, e := range except {
			if s == e {
				continue next
			}
		}
		if d, ok := s.idleFor(now); ok && s.user == "" && d > longest {
			oldest, longest = s, d
		}
	}
	if oldest != nil {
		oldest.closeAsks()
	}
	return oldest
}

// boundRefusal is the refusal by bound limit of value max, whose sessions are
// list: try again when the first of them reaches its idle timeout.
func (ls *legacySessions) boundRefusal(limit string, max int, list []*legacySession, now time.Time) *refusal {
	if ls.idle <= 0 {
		return &refusal{limit, max, noTimeoutRetryAfter}
	}
	first := ls.idle
	for _, s := range list {
		if d, ok := s.idleFor(now); ok && ls.idle-d < first {
			first = ls.idle - d
		}
	}
	return &refusal{limit, max, first}
}

// refuse answers an initialize (JSON-RPC id id) that bound r refuses: 429
// with Retry-After, and a JSON-RPC error (code machine.CodeTaskLimit,
// data {"limit": NAME, "max": N}) whose message names the bound and what
// to do.
func (ls *legacySessions) refuse(w http.ResponseWriter, id jsonrpc.ID, r *refusal) {
	var message string
	switch r.limit {
	case LimitSessionsPerPrincipal:
		message = fmt.Sprintf("too many open sessions for this user: at most %d; end sessions you no longer use with DELETE, "+
			"or wait for idle ones to end (after %v without a request)", r.max, ls.idle)
	case LimitAnonymousSessionsPerAddress:
		message = fmt.Sprintf("too many open sessions without a token from this address: at most %d; end sessions you no longer use with DELETE, "+
			"or wait for idle ones to end (after %v without a request), or authenticate", r.max, ls.idle)
	case LimitAnonymousSessions:
		message = fmt.Sprintf("too many open sessions without a token on this server: at most %d, all of them busy; try again later, or authenticate", r.max)
	default:
		message = fmt.Sprintf("too many open sessions on this server: at most %d, none that can be closed; try again later", r.max)
	}
	secs := int64(math.Ceil(r.retryAfter.Seconds()))
	w.Header().Set("Retry-After", fmt.Sprint(max(secs, 1)))
	data := taskrun.MustJSON(map[string]any{"limit": r.limit, "max": r.max})
	taskrun.WriteJSONRPCError(w, http.StatusTooManyRequests, id, &jsonrpc.Error{Code: taskrun.CodeTaskLimit, Message: message, Data: data})
}

// evict closes sessions that admit evicted, as a DELETE of their owner
// would: their questions ended (oldestIdle did), then the SDK's close,
// which ends their goroutines.
func (ls *legacySessions) evict(r *http.Request, sessions []*legacySession) {
	for _, s := range sessions {
		del := r.Clone(context.WithoutCancel(r.Context()))
		del.Method = http.MethodDelete
		del.Body, del.ContentLength = http.NoBody, 0
		del.Header = http.Header{httpSessionHeader: {s.id}}
		ls.closer.ServeHTTP(discardWriter{}, del)
		if ls.logger != nil {
			ls.logger.DebugContext(r.Context(), "mcp session closed to make room", "idle", time.Since(s.lastSeenNow()).Round(time.Second))
		}
	}
}

// lastSeenNow reads lastSeen under the lock.
func (s *legacySession) lastSeenNow() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastSeen
}

// discardWriter is the response writer of an eviction's DELETE.
type discardWriter struct{}

func (discardWriter) Header() http.Header         { return http.Header{} }
func (discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (discardWriter) WriteHeader(int)             {}

// pruneAll forgets the sessions that no longer count, and the principals
// and addresses left with none; ls.mu is held.
func (ls *legacySessions) pruneAll(now time.Time) {
	ls.all = ls.prune(ls.all, now)
	ls.anon = ls.prune(ls.anon, now)
	for _, m := range []map[string][]*legacySession{ls.byUser, ls.byAddr} {
		for key, sessions := range m {
			if live := ls.prune(sessions, now); len(live) > 0 {
				m[key] = live
			} else {
				delete(m, key)
			}
		}
	}
}
