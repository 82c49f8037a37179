package machine

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitgen/elicitgen/internal/seal"
)

// ErrReplayed is the error of a retry of a flow that already completed
// after answering a Once step, whichever of the flow's states it carries.
var ErrReplayed = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestState already used"}

// flowClaimID names a flow for the replay guard: its identity (random,
// from its first round) under its tool and binding.
func flowClaimID(tool string, b seal.Binding, flow string) string {
	h := sha256.New()
	h.Write([]byte("elicitgen flow v1\x00"))
	for _, s := range []string{tool, string(b.ArgsDigest[:]), b.Principal, b.Audience, flow} {
		h.Write(binary.AppendUvarint(nil, uint64(len(s))))
		h.Write([]byte(s))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}
