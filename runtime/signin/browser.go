package signin

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/templates"
)

// The names of the nonce cookie that ties a sign-in to the browser that
// started it: the __Host- name over HTTPS (Secure, Path=/, no Domain, so
// that no other host or plain-HTTP page can set it), the plain name over
// HTTP (browsers refuse __Host- cookies without Secure).
const (
	NonceCookieSecure = "__Host-elicitgen_flow"
	NonceCookie       = "elicitgen_flow"
)

// MaxSignInsPerBrowser is how many sign-ins one browser may have started
// and not finished at once: the nonce cookie holds the nonces of the
// latest ones, so that two tabs (two links, or one link opened twice) do
// not break each other. A sign-in started before that many others loses
// its nonce: its callback gets templates.PageOtherBrowser.
const MaxSignInsPerBrowser = 5

// nonceEntry is one sign-in of the browser: the flow it was started for
// and the nonce its state carries the digest of.
type nonceEntry struct {
	FlowID string `json:"f"`
	Nonce  []byte `json:"n"`
}

// nonceValue is the value of the nonce cookie, sealed: the browser's
// latest sign-ins, oldest first. Earlier releases sealed one sign-in, in
// the fields f and n.
type nonceValue struct {
	LegacyFlowID string       `json:"f,omitempty"`
	LegacyNonce  []byte       `json:"n,omitempty"`
	Entries      []nonceEntry `json:"e,omitempty"`
}

// entries are the sign-ins of v, the one of an earlier release included.
func (v nonceValue) entries() []nonceEntry {
	if v.LegacyFlowID == "" {
		return v.Entries
	}
	return append([]nonceEntry{{FlowID: v.LegacyFlowID, Nonce: v.LegacyNonce}}, v.Entries...)
}

// browserSignIns are the sign-ins the nonce cookie of r holds (none when
// it has none, or one that does not open); cookie reports whether r
// carries the cookie at all.
func (c *connect) browserSignIns(r *http.Request) (entries []nonceEntry, cookie bool) {
	ck, err := r.Cookie(c.nonceCookie(r, "", 0).Name)
	if err != nil {
		return nil, false
	}
	var nv nonceValue
	if c.open(nonceBinding(c.opts.Audience), ck.Value, &nv) != seal.NotRefused {
		return nil, true
	}
	return nv.entries(), true
}

// startSignIn adds a fresh nonce for flowID to the browser's sign-ins,
// dropping the oldest beyond MaxSignInsPerBrowser: it returns the nonce
// cookie to set and the nonce's SHA-256, for the state.
func (c *connect) startSignIn(r *http.Request, flowID string, now time.Time) (*http.Cookie, []byte, error) {
	nonce := make([]byte, 32)
	_, _ = rand.Read(nonce) // never fails
	hash := sha256.Sum256(nonce)
	entries, _ := c.browserSignIns(r)
	entries = append(entries, nonceEntry{FlowID: flowID, Nonce: nonce})
	entries = entries[max(0, len(entries)-MaxSignInsPerBrowser):]
	ck, err := c.signInsCookie(r, entries, now)
	return ck, hash[:], err
}

// signInsCookie is the nonce cookie that holds entries, or deletes the
// cookie when there are none.
func (c *connect) signInsCookie(r *http.Request, entries []nonceEntry, now time.Time) (*http.Cookie, error) {
	if len(entries) == 0 {
		return c.nonceCookie(r, "", -1), nil
	}
	sealed, err := c.seal(nonceBinding(c.opts.Audience), nonceValue{Entries: entries}, now)
	if err != nil {
		return nil, err
	}
	return c.nonceCookie(r, sealed, max(1, int(c.opts.FlowTTL/time.Second))), nil
}

// secure reports whether r reached the pages over HTTPS.
func (c *connect) secure(r *http.Request) bool {
	return c.opts.Secure || r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// nonceCookie returns the nonce cookie for r, with value and max age (-1
// deletes it).
func (c *connect) nonceCookie(r *http.Request, value string, maxAge int) *http.Cookie {
	ck := &http.Cookie{Name: NonceCookie, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true, SameSite: http.SameSiteLaxMode}
	if c.secure(r) {
		ck.Name, ck.Secure = NonceCookieSecure, true
	}
	return ck
}

// checkNonce reports whether the browser's nonce cookie holds, for this
// flow, the nonce st was made with; otherwise it renders the
// other-browser page. On success it returns the cookie to set once the
// flow is recorded: the browser's other sign-ins, without this one.
func (c *connect) checkNonce(w http.ResponseWriter, r *http.Request, f seal.ConnectFlow, st *signInState) ([]nonceEntry, bool) {
	entries, cookie := c.browserSignIns(r)
	for i, e := range entries {
		if hash := sha256.Sum256(e.Nonce); e.FlowID == f.ID && subtle.ConstantTimeCompare(hash[:], st.NonceHash) == 1 {
			return append(entries[:i:i], entries[i+1:]...), true
		}
	}
	c.opts.Logger.Warn("elicitgen: connect: callback without the nonce of its sign-in", "tool", f.Tool, "step", f.Step, "cookie", cookie, "sign_ins", len(entries))
	c.render(w, r, page{name: templates.PageOtherBrowser, status: http.StatusForbidden, account: f.Subject, retry: st.Link})
	return nil, false
}
