package transport

import (
	"fmt"
	"net/http"
	"time"
)

// DefaultMaxSessionsPerPrincipal is the bound on the legacy sessions one
// principal holds when [HTTPOptions.MaxSessionsPerPrincipal] is zero: 64.
// A client keeps one session, and one that reconnects without DELETE
// leaves the old one for [DefaultSessionTimeout]; 64 leaves room for
// several clients and reconnections, while one principal's idle sessions
// hold at most about 1.2 MiB (about 19 KiB and a goroutine each).
const DefaultMaxSessionsPerPrincipal = 64

// maxSessions is the per-principal bound for
// HTTPOptions.MaxSessionsPerPrincipal n: 0 for none.
func maxSessions(n int) int {
	switch {
	case n == 0:
		return DefaultMaxSessionsPerPrincipal
	case n < 0:
		return 0
	}
	return n
}

// live reports whether the session still counts against its principal's
// bound: not deleted or failed, and with a waiting question or a request
// within the idle timeout (after which the SDK closes it).
func (s *legacySession) live(now time.Time, idle time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.gone && (idle <= 0 || len(s.asks) > 0 || now.Sub(s.lastSeen) <= idle)
}

func (s *legacySession) markGone() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gone = true
}

// admit counts s against its principal's bound, and reports false when
// the principal already holds the most live sessions it may. Sessions
// without a principal are not bounded here.
func (ls *legacySessions) admit(s *legacySession) bool {
	if ls.max <= 0 || s.user == "" {
		return true
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	now := time.Now()
	var live []*legacySession
	for _, o := range ls.byUser[s.user] {
		if o.live(now, ls.idle) {
			live = append(live, o)
		}
	}
	if len(live) >= ls.max {
		ls.byUser[s.user] = live
		return false
	}
	if ls.byUser == nil {
		ls.byUser = map[string][]*legacySession{}
	}
	ls.byUser[s.user] = append(live, s)
	return true
}

// pruneUsers forgets the sessions that no longer count, and the
// principals left with none; ls.mu is held.
func (ls *legacySessions) pruneUsers(now time.Time) {
	for user, sessions := range ls.byUser {
		live := sessions[:0]
		for _, s := range sessions {
			if s.live(now, ls.idle) {
				live = append(live, s)
			}
		}
		if len(live) == 0 {
			delete(ls.byUser, user)
			continue
		}
		ls.byUser[user] = live
	}
}

// refuseSession answers an initialize over the principal's bound: 429,
// naming the bound and what to do.
func (ls *legacySessions) refuseSession(w http.ResponseWriter) {
	http.Error(w, fmt.Sprintf("too many open sessions for this user: at most %d; end sessions you no longer use with DELETE, "+
		"or wait for idle ones to end (after %v without a request)", ls.max, ls.idle), http.StatusTooManyRequests)
}
