// Package refuse tells the operator why a server refused what a client
// echoed back: a requestState, a confirmation token, a flow token or a
// sign-in state. The client is told only that it is invalid or expired;
// the log says why (a reason of the closed set of seal.Refusal) and what
// to check, at Warn, at most one line per kind and reason each interval,
// never the state, the token, the user, the arguments or the answers.
package refuse

import (
	"log/slog"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// What was refused: the kinds of backend.EventRefused, and the sign-in
// pages' flow tokens and states.
const (
	State  = backend.RefusedState
	Token  = backend.RefusedToken
	Flow   = "flow token"
	SignIn = "sign-in state"
	Result = "sign-in result"
)

// DefaultEvery is a Log's interval between two lines of one kind and
// reason.
const DefaultEvery = time.Minute

// Log logs refusals at Warn, rate-limited per kind and reason: the first
// refusal of a kind and reason is logged, the next ones within Every are
// counted, and the next line says how many were not logged. Its memory is
// bounded by the kinds and reasons, whatever clients send. The zero Log
// logs on the real clock every DefaultEvery; it is safe for concurrent
// use.
type Log struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Every is the interval; 0 means DefaultEvery.
	Every time.Duration

	mu   sync.Mutex
	seen map[key]*seen
}

type key struct {
	what string
	why  seal.Refusal
}

type seen struct {
	at         time.Time // of the last line
	suppressed int       // refusals since, not logged
}

// Refused records that what was refused for why, on tool (a name the
// server declared, never one from the request), and logs it to logger
// unless a line of the same kind and reason was logged less than Every
// ago.
func (l *Log) Refused(logger *slog.Logger, what, tool string, why seal.Refusal) {
	suppressed, ok := l.due(key{what, why})
	if !ok || logger == nil {
		return
	}
	attrs := []any{"reason", why.String(), "check", Hint(why)}
	if tool != "" {
		attrs = append([]any{"tool", tool}, attrs...)
	}
	if suppressed > 0 {
		attrs = append(attrs, "suppressed", suppressed)
	}
	logger.Warn("elicitgen: "+what+" refused", attrs...)
}

// due counts a refusal of k and reports whether a line is due, with the
// refusals not logged since the last one.
func (l *Log) due(k key) (suppressed int, ok bool) {
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	every := l.Every
	if every <= 0 {
		every = DefaultEvery
	}
	t := now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[key]*seen{}
	}
	s := l.seen[k]
	if s == nil {
		l.seen[k] = &seen{at: t}
		return 0, true
	}
	if t.Sub(s.at) < every {
		s.suppressed++
		return 0, false
	}
	suppressed, s.at, s.suppressed = s.suppressed, t, 0
	return suppressed, true
}

// Hint is what an operator checks for a refusal of why.
func Hint(why seal.Refusal) string {
	switch why {
	case seal.RefusedOtherAudience:
		return "sealed under another ToolOptions.Audience by an instance sharing the key ring: instances of one deployment share one Audience"
	case seal.RefusedUnknownKey:
		return "sealed by a key this instance's ring lacks: instances of one deployment share ELICITGEN_STATE_KEYS, and a rotated key stays in the ring until what it sealed has expired"
	case seal.RefusedExpired:
		return "older than its lifetime (ToolOptions.TTL): the person answered late, or the clocks of the instances differ"
	case seal.RefusedOtherUser:
		return "sealed for another user: a client mixing sessions, or a replay by someone else"
	case seal.RefusedOtherCall:
		return "sealed for another tool or other arguments: a client that changed the arguments on retry"
	case seal.RefusedUsed:
		return "already used: single-use, claimed before (a retry after a completed call, or a replay)"
	}
	return "malformed or altered, or sealed by another key with the same id"
}

// MaxValueLen bounds a value from a client that a log line or an error
// message carries ([Bounded]).
const MaxValueLen = 256

// Bounded is s, a value from a client, cut to [MaxValueLen] bytes for a
// log line or an error message.
func Bounded(s string) string { return Cut(s, MaxValueLen) }

// Cut cuts s to at most n bytes, on a rune boundary, marking the cut
// with "…".
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	at := n - len("…")
	for at > 0 && !utf8.RuneStart(s[at]) {
		at--
	}
	return s[:at] + "…"
}
