package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ReplayGuard makes a sealed state usable once: the spec leaves single use
// to servers, which "MUST enforce that invariant server-side". Claim
// records id until the given time and reports whether this was the first
// claim. Implementations must be safe for concurrent use; instances that
// serve one tool share one guard (a database, Redis SETNX...).
type ReplayGuard interface {
	Claim(ctx context.Context, id string, until time.Time) (first bool, err error)
}

// ErrReplayed is the error of a retry whose state was already used to
// complete a single-use flow.
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

// stateID names a sealed state for the replay guard.
func stateID(tool, state string) string {
	sum := sha256.Sum256([]byte(tool + "\x00" + state))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
