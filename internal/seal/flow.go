package seal

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"time"
)

// ConnectFlow is one URL-mode flow: what the flow token carries, and the
// user the connect pages verified.
type ConnectFlow struct {
	// ID is the flow's random identifier, also kept in the sealed
	// requestState of the tool call that started it.
	ID string
	// Subject is the principal of the tool call that started the flow: the
	// only user who may complete it. The flow token carries its SHA-256
	// digest, not Subject, so that the token's length does not depend on
	// the user id: OpenFlow leaves Subject empty, and the connect pages set
	// it to the browser's user once IsSubject confirmed it, before
	// AuthorizeURL and Exchange see the flow.
	Subject string
	// Tool and Step name the tool and its URL step (the step key is also
	// the name the grant is stored under).
	Tool string
	Step string

	digest [sha256.Size]byte // of the subject, as sealed (zero: none)
}

// IsSubject reports whether subject, a user id, is the flow's subject:
// Subject when it is set, else the user whose digest the token carries.
// The empty subject is nobody's.
func (f ConnectFlow) IsSubject(subject string) bool {
	if subject == "" || f.Subject != "" {
		return subject != "" && subject == f.Subject
	}
	d := subjectDigest(subject)
	return f.digest != [sha256.Size]byte{} && subtle.ConstantTimeCompare(d[:], f.digest[:]) == 1
}

// subjectDigest is the SHA-256 of subject under a domain of its own.
func subjectDigest(subject string) [sha256.Size]byte {
	return sha256.Sum256([]byte("elicitgen subject v1\x00" + subject))
}

// FlowWire is a ConnectFlow as flow tokens, sign-in states and result
// pages seal it: the subject's digest, not the subject.
type FlowWire struct {
	ID     string `json:"f"`
	Digest []byte `json:"d,omitempty"`
	Legacy string `json:"s,omitempty"` // the subject itself, as earlier releases sealed it
	Tool   string `json:"t"`
	Step   string `json:"k"`
}

func (f ConnectFlow) Wire() FlowWire {
	d := f.digest
	if f.Subject != "" {
		d = subjectDigest(f.Subject)
	}
	return FlowWire{ID: f.ID, Digest: d[:], Tool: f.Tool, Step: f.Step}
}

// Flow is the ConnectFlow of w, without its Subject; false when w names
// no flow.
func (w FlowWire) Flow() (ConnectFlow, bool) {
	f := ConnectFlow{ID: w.ID, Tool: w.Tool, Step: w.Step}
	switch {
	case len(w.Digest) == sha256.Size:
		copy(f.digest[:], w.Digest)
	case w.Legacy != "":
		f.digest = subjectDigest(w.Legacy)
	}
	return f, f.ID != ""
}

// FlowBinding is the binding of flow tokens under audience: they never
// open as a requestState, nor a requestState as a flow token, nor a token
// of one audience under another.
func FlowBinding(audience string) Binding {
	return Binding{Tool: "elicitgen/connect-flow", Audience: audience}
}

// MaxFlowTokenLen bounds a flow token read from a URL.
const MaxFlowTokenLen = 2048

// NewFlowID returns 128 random bits, base64url.
func NewFlowID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// SealFlow makes the opaque flow token of f for audience (the
// ToolOptions.Audience of the tool, the ConnectOptions.Audience of its
// pages), valid for ttl: encrypted and authenticated with the keyring, so
// it carries no readable data and cannot be altered. It carries the digest
// of f.Subject, whatever its length; a token longer than MaxFlowTokenLen
// (a tool name or step key of kilobytes) is ErrFlowTokenTooLong, never a
// link that OpenFlow refuses.
func (k *Keyring) SealFlow(f ConnectFlow, audience string, now time.Time, ttl time.Duration) (string, error) {
	payload, err := json.Marshal(f.Wire()) // strings and bytes
	if err != nil {
		return "", err
	}
	token, err := k.Seal(FlowBinding(audience), 0, payload, now, ttl)
	if err == nil && len(token) > MaxFlowTokenLen {
		return "", ErrFlowTokenTooLong
	}
	return token, err
}

// ErrFlowTokenTooLong is the error of SealFlow for a flow whose token
// would exceed MaxFlowTokenLen.
var ErrFlowTokenTooLong = errors.New("elicitrt: flow token exceeds MaxFlowTokenLen (" + strconv.Itoa(MaxFlowTokenLen) + " bytes): shorten the tool name or the step key")

// OpenFlow opens a flow token sealed for audience. Any failure (tampered,
// truncated, expired, another key or audience, not a flow token) is
// ErrInvalidFlowToken.
func (k *Keyring) OpenFlow(token, audience string, now time.Time) (ConnectFlow, error) {
	f, why := k.OpenFlowReason(token, audience, now)
	if why != NotRefused {
		return ConnectFlow{}, ErrInvalidFlowToken
	}
	return f, nil
}

// OpenFlowReason is OpenFlow that says why it refused a token, for the
// operator; NotRefused when it opened.
func (k *Keyring) OpenFlowReason(token, audience string, now time.Time) (ConnectFlow, Refusal) {
	if len(token) > MaxFlowTokenLen {
		return ConnectFlow{}, RefusedTampered
	}
	_, payload, _, why := k.OpenReason(FlowBinding(audience), token, now)
	if why != NotRefused {
		return ConnectFlow{}, why
	}
	var w FlowWire
	if json.Unmarshal(payload, &w) != nil {
		return ConnectFlow{}, RefusedTampered
	}
	f, ok := w.Flow()
	if !ok {
		return ConnectFlow{}, RefusedTampered
	}
	return f, NotRefused
}

// ErrInvalidFlowToken is the one error of OpenFlow.
var ErrInvalidFlowToken = errors.New("invalid or expired flow token")
