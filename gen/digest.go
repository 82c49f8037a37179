package gen

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
)

// stepDigest is the digest of what the person is shown at step s and what
// their answer means (docs/guide/deploys.md): its key and mode, its static
// message or the fact that the handler writes it, its form's
// requestedSchema, and the options that change where an answer comes
// from or what it means (confirm, once, during, prefill, ask=handler, the
// fallback). It leaves out what no person sees: handler code,
// descriptions for the model, and together, which only groups questions
// into rounds. The runtime seals the combination of a tool's step digests
// into every state, token and task record, and opens none sealed under
// another (Step.Digest).
func stepDigest(s *stepModel) string {
	h := sha256.New()
	field := func(v string) {
		h.Write(binary.AppendUvarint(nil, uint64(len(v))))
		h.Write([]byte(v))
	}
	flag := func(name string, on bool) {
		if on {
			field(name)
		}
	}
	field("elicitgen step v1")
	field(s.Key)
	if s.URL {
		field("url")
	} else {
		field("form")
		field(string(s.Form.Schema))
	}
	if s.MessageHandler {
		field("message=handler")
	} else {
		field("message=" + s.Message)
	}
	field("confirm=" + s.Confirm)
	field("accept=" + s.Accept)
	field("fallback=" + s.Fallback)
	field("prefill=" + strings.Join(s.PrefillProps, ",") + ";" + strings.Join(s.PrefillNeeds, ","))
	flag("once", s.Once)
	flag("during", s.During)
	flag("prefill", s.Prefill)
	flag("ask=handler", s.AskHandler)
	return hex.EncodeToString(h.Sum(nil)[:16])
}
