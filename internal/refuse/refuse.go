// Package refuse tells the operator why a server refused what a client
// echoed back: a requestState, a confirmation token, a flow token or a
// sign-in state. The client is told only that it is invalid or expired;
// the log says why (a reason of the closed set of seal.Refusal) and what
// to check, at Warn, at most one line per kind and reason each interval
// (a burst not logged is counted in the line that closes its window),
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

// Clock is a Log's clock: the time, and the timers that report a
// suppressed burst when its window closes. AfterFunc calls f once d has
// passed, unless the stop it returns is called first.
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// SystemClock is the clock whose time is now (nil: time.Now) and whose
// timers are the runtime's (time.AfterFunc): a tool's clock
// (ToolOptions.Now) says when a window closes, the real one how long to
// wait for it.
func SystemClock(now func() time.Time) Clock { return systemClock{now} }

type systemClock struct{ now func() time.Time }

func (c systemClock) Now() time.Time {
	if c.now == nil {
		return time.Now()
	}
	return c.now()
}

func (systemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// Log logs refusals at Warn, rate-limited per kind and reason: the first
// refusal of a kind and reason is logged and opens a window of Every; the
// next ones within it are counted, and when the window closes one line
// says how many were not logged (suppressed), whether or not another
// refusal comes. That line opens the next window, so a kind and reason
// gets at most one line each Every. A refusal that finds its window
// closed before the report was made is logged with the count itself, and
// the report is cancelled. Its memory is bounded by the kinds and
// reasons, whatever clients send, and it holds one timer per kind and
// reason with refusals not yet reported, none otherwise. The zero Log
// logs on the real clock every DefaultEvery; it is safe for concurrent
// use.
type Log struct {
	// Clock is the clock of the windows and their reports; nil means
	// SystemClock(nil).
	Clock Clock
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
	at         time.Time    // of the last line
	suppressed int          // refusals since, not logged
	logger     *slog.Logger // of the last of them, for the report
	tool       string       // of the last of them
	stop       func() bool  // of the pending report, nil when none is
	gen        uint64       // of the latest timer: an older one reports nothing
}

// Refused records that what was refused for why, on tool (a name the
// server declared, never one from the request), and logs it to logger
// unless a line of the same kind and reason was logged less than Every
// ago; then the line that closes the window counts it.
func (l *Log) Refused(logger *slog.Logger, what, tool string, why seal.Refusal) {
	if suppressed, ok := l.due(key{what, why}, logger, tool); ok {
		line(logger, key{what, why}, tool, suppressed)
	}
}

// line logs a refusal of k, or the end of a window, with the refusals not
// logged before it. It carries the kind, the tool, the reason, the check
// and the count: never what was refused, whose or with what.
func line(logger *slog.Logger, k key, tool string, suppressed int) {
	if logger == nil {
		return
	}
	attrs := []any{"reason", k.why.String(), "check", Hint(k.why)}
	if tool != "" {
		attrs = append([]any{"tool", tool}, attrs...)
	}
	if suppressed > 0 {
		attrs = append(attrs, "suppressed", suppressed)
	}
	logger.Warn("elicitgen: "+k.what+" refused", attrs...)
}

func (l *Log) clock() Clock {
	if l.Clock == nil {
		return SystemClock(nil)
	}
	return l.Clock
}

func (l *Log) every() time.Duration {
	if l.Every <= 0 {
		return DefaultEvery
	}
	return l.Every
}

// due counts a refusal of k and reports whether a line is due, with the
// refusals not logged since the last one; a refusal not logged makes sure
// a report of k is pending (to logger, when it is not nil).
func (l *Log) due(k key, logger *slog.Logger, tool string) (suppressed int, ok bool) {
	clock, every := l.clock(), l.every()
	t := clock.Now()
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
		s.logger, s.tool = logger, tool
		if s.stop == nil && logger != nil {
			s.gen++
			gen := s.gen
			wait := min(max(s.at.Add(every).Sub(t), 0), every)
			s.stop = clock.AfterFunc(wait, func() { l.report(k, gen) })
		}
		return 0, false
	}
	suppressed = s.suppressed
	s.cancel()
	s.at, s.suppressed = t, 0
	return suppressed, true
}

// cancel stops the pending report, if any: one already firing finds no
// timer, or a later one, and reports nothing.
func (s *seen) cancel() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

// report closes the window of k that timer gen was started for: it logs
// the refusals not logged, and opens the next window.
func (l *Log) report(k key, gen uint64) {
	t := l.clock().Now()
	l.mu.Lock()
	s := l.seen[k]
	if s == nil || s.stop == nil || s.gen != gen {
		l.mu.Unlock()
		return
	}
	suppressed, logger, tool := s.suppressed, s.logger, s.tool
	s.stop, s.suppressed, s.logger, s.at = nil, 0, nil, t
	l.mu.Unlock()
	line(logger, k, tool, suppressed)
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
