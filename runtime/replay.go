package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ReplayGuard makes a flow that answered a Once step complete once: the
// spec leaves single use to servers, which "MUST enforce that invariant
// server-side". Claim records id until the given time and reports whether
// this was the first claim; it must be atomic (two instances racing on one
// id: exactly one gets first). What a shared guard stores is the id (a
// digest naming the tool, the binding and the flow's identity; no answer,
// no user data) and its expiry: the time after which no state of the flow
// can open any more. Implementations must be safe for concurrent use;
// instances that serve one tool share one guard (a database, Redis SET NX
// with an expiry...).
type ReplayGuard interface {
	Claim(ctx context.Context, id string, until time.Time) (first bool, err error)
}

// ErrReplayed is the error of a retry of a flow that already completed
// after answering a Once step, whichever of the flow's states it carries.
var ErrReplayed = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestState already used"}

// MemoryReplayGuard is the in-process ReplayGuard. The zero value is ready.
type MemoryReplayGuard struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu     sync.Mutex
	claims map[string]time.Time
	writes int
}

// Claim implements ReplayGuard.
func (g *MemoryReplayGuard) Claim(ctx context.Context, id string, until time.Time) (bool, error) {
	now := time.Now()
	if g.Now != nil {
		now = g.Now()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.claims == nil {
		g.claims = map[string]time.Time{}
	}
	if exp, ok := g.claims[id]; ok && now.Before(exp) {
		return false, nil
	}
	g.claims[id] = until
	if g.writes++; g.writes%1024 == 0 {
		for k, exp := range g.claims {
			if !now.Before(exp) {
				delete(g.claims, k)
			}
		}
	}
	return true, nil
}

var defaultReplay = &MemoryReplayGuard{}

// DefaultReplayGuard is the process-wide in-memory guard that machines use
// when their options name none.
func DefaultReplayGuard() ReplayGuard { return defaultReplay }

// flowClaimID names a flow for the replay guard: its identity (random,
// from its first round) under its tool and binding.
func flowClaimID(tool string, b Binding, flow string) string {
	h := sha256.New()
	h.Write([]byte("elicitgen flow v1\x00"))
	for _, s := range []string{tool, string(b.ArgsDigest[:]), b.Principal, b.Audience, flow} {
		h.Write(binary.AppendUvarint(nil, uint64(len(s))))
		h.Write([]byte(s))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}
