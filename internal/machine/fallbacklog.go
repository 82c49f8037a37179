package machine

import (
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/elicitgen/elicitgen/internal/refuse"
)

// Saying why a step was not shown: when a request cannot show a step and
// its fallback is taken, the server logs it at Info, once per client (its
// name and version, the era, the elicitation modes it declared), tool,
// step and fallback: "claude-code 2.1.280 (2025-11-25) declares form only:
// step billing of list_invoices falls back to the link". Never arguments,
// answers or users. Client names and versions come from the client, so
// each is cut and quoted, and a machine logs at most maxFallbackLines
// distinct lines: a client that rotates its name cannot flood the log.
// With telemetry on, the same is the span event elicitgen.fallback.

// maxFallbackLines bounds the distinct fallback lines one machine logs.
const maxFallbackLines = 256

// fallbackLog is the set of fallback lines a machine has logged.
type fallbackLog struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

// first reports whether key is new, and remembers it while there is room.
func (l *fallbackLog) first(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.seen[key]; ok || len(l.seen) >= maxFallbackLines {
		return false
	}
	if l.seen == nil {
		l.seen = map[string]struct{}{}
	}
	l.seen[key] = struct{}{}
	return true
}

// logFallback logs, once per client, that step j could not be shown and
// its fallback was taken.
func (c *call) logFallback(j int) {
	name, version := "an unnamed client", ""
	if info := c.req.raw.ClientInfo(); info != nil && info.Name != "" {
		name, version = clientWord(info.Name, ClientNameBytes), clientWord(info.Version, ClientVersionBytes)
	}
	era := c.req.ProtocolVersion()
	modes := declaredModes(c.req)
	step := &c.m.steps[j]
	fallback := fallbackNames[step.Fallback]
	if !c.m.fallbacks.first(name + "\x00" + version + "\x00" + era + "\x00" + modes + "\x00" + step.Key + "\x00" + fallback) {
		return
	}
	who := strings.TrimSpace(name + " " + version)
	c.log().Info("elicitgen: "+who+" ("+era+") declares "+modes+": step "+step.Key+" of "+c.m.tool+" falls back to "+fallbackPhrase[step.Fallback],
		"client", name, "clientVersion", version, "era", era, "modes", modes, "step", step.Key, "fallback", fallback)
}

// fallbackPhrase says what each fallback does, for the log.
var fallbackPhrase = [...]string{FallbackError: "an error (-32021)", FallbackDefaults: "its defaults",
	FallbackArguments: "the arguments", FallbackHandler: "the handler", FallbackPreview: "a preview and a confirmation token", FallbackLink: "the link"}

// declaredModes names the elicitation modes req declared.
func declaredModes(req *request) string {
	e := req.elicitation()
	switch {
	case e == nil:
		return "no elicitation"
	case e.URL == nil:
		return "form only"
	case e.Form == nil:
		return "url only"
	}
	return "form and url"
}

// A client's name and version are shown at most this long, in bytes: what
// a 2025-11-25 session keeps of its initialize is cut to these lengths
// too (CutClientWord), so that the log reads the same from either.
const (
	ClientNameBytes    = 64
	ClientVersionBytes = 32
)

// CutClientWord is s cut to at most n bytes as the log cuts a client's
// name or version (at a character boundary, with "…"): the log of the
// cut value is the log of s.
func CutClientWord(s string, n int) string { return strings.Clone(refuse.Cut(s, n)) }

// clientWord is a client's name or version as the log shows it: at most
// n bytes, quoted when it holds anything but letters, digits and .-_/+
// (so that no client writes a line of its own into the log).
func clientWord(s string, n int) string {
	s = refuse.Cut(s, n)
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '-' && r != '_' && r != '/' && r != '+' {
			return strconv.Quote(s)
		}
	}
	return s
}
