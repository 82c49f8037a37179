package backend

import (
	"context"
	"crypto/sha256"
	"errors"
	"slices"
	"sync"
	"time"
)

// ReplayGuard makes a flow that answered a Once step complete once: the
// spec leaves single use to servers, which "MUST enforce that invariant
// server-side". Claim records id for ttl and reports whether this was the
// first claim; it must be atomic (two instances racing on one id: exactly
// one gets first). What a shared guard stores is the id (a digest naming
// the tool, the binding and the flow's identity; no answer, no user data)
// for ttl: the time left until no state of the flow can open any more.
//
// A guard fails closed: a claim it cannot remember (ttl not positive, the
// guard full, its backend unreachable) is refused with an error, never
// reported first. The guard is given a duration, not an instant, so that
// its clock never has to agree with the caller's: the caller's clock
// (ToolOptions.Now) decides how long, the guard's own measures it.
//
// Implementations must be safe for concurrent use; instances that serve
// one tool share one guard (a database, Redis SET NX PX...).
type ReplayGuard interface {
	Claim(ctx context.Context, id string, ttl time.Duration) (first bool, err error)
}

// ErrClaimNoTime is the error of a claim whose ttl is not positive: a
// guard cannot remember it, so it refuses it rather than report a first
// claim that a second one could repeat.
var ErrClaimNoTime = errors.New("elicitgen: a single-use claim with no time left to remember it is refused")

// MemoryReplayGuard is the in-process ReplayGuard. The zero value is ready.
//
// Its memory is bounded: it remembers at most MaxClaims flows at a time,
// each until its expiry (the end of the flow's last state), in 64 to 84
// bytes each (a 128-bit digest of the id and the expiry, in a map and in a heap
// ordered by expiry; BenchmarkMemoryReplayGuard reports B/flow). Expired
// claims are dropped as claims come, oldest first, in O(log n) each; when
// the claims fall to a quarter of a past peak, the peak's memory is given
// back.
//
// When MaxClaims flows are remembered and none has expired, Claim refuses
// with ErrReplayGuardFull: the flow does not complete (the call fails;
// its state is not used up, so the same retry succeeds once older claims
// expire, within the state's life). The alternative, forgetting the claim that expires soonest,
// would let that flow's states complete it again for the rest of their
// life: a replay bought with a flood of completions. Refusing costs
// availability for once steps only, and only while more than MaxClaims
// once-flows completed within the states' lifetime: at the default
// 262,144 and a 10-minute TTL, over 400 confirmations a second, sustained.
type MemoryReplayGuard struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxClaims bounds the flows remembered at once; 0 means
	// DefaultMaxClaims.
	MaxClaims int

	mu     sync.Mutex
	claims map[claimKey]int64 // expiry, Unix nanoseconds
	queue  []claimEntry       // min-heap on exp: every claim, once
}

// DefaultMaxClaims is the number of flows a MemoryReplayGuard remembers
// at most, by default: 16 to 21 MiB.
const DefaultMaxClaims = 1 << 18

// ErrReplayGuardFull is the error of MemoryReplayGuard.Claim when it
// already remembers MaxClaims unexpired flows: the flow does not complete.
var ErrReplayGuardFull = errors.New("elicitgen: too many confirmations completed recently to remember another; try again in a few minutes")

// claimKey is the first 128 bits of the SHA-256 of a claimed id: ids are
// the runtime's own digests, so a collision (which would refuse a flow,
// never complete one twice) has no practical chance.
type claimKey [16]byte

type claimEntry struct {
	exp int64
	key claimKey
}

// Claim implements ReplayGuard.
func (g *MemoryReplayGuard) Claim(ctx context.Context, id string, ttl time.Duration) (bool, error) {
	if ttl <= 0 {
		return false, ErrClaimNoTime
	}
	now := time.Now()
	if g.Now != nil {
		now = g.Now()
	}
	sum := sha256.Sum256([]byte(id))
	key := claimKey(sum[:16])
	nowNS := now.UnixNano()
	exp := nowNS + int64(ttl)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.claims == nil {
		g.claims = map[claimKey]int64{}
	}
	g.expire(nowNS)
	if _, ok := g.claims[key]; ok {
		return false, nil
	}
	limit := g.MaxClaims
	if limit <= 0 {
		limit = DefaultMaxClaims
	}
	if len(g.claims) >= limit {
		return false, ErrReplayGuardFull
	}
	g.claims[key] = exp
	g.push(claimEntry{exp, key})
	return true, nil
}

// Len returns the number of flows remembered (expired ones included until
// the next Claim drops them).
func (g *MemoryReplayGuard) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.claims)
}

// expire drops the claims expired at now; called with mu held.
func (g *MemoryReplayGuard) expire(now int64) {
	for len(g.queue) > 0 && g.queue[0].exp <= now {
		delete(g.claims, g.queue[0].key)
		last := len(g.queue) - 1
		g.queue[0] = g.queue[last]
		g.queue = g.queue[:last]
		g.down(0)
	}
	if c := cap(g.queue); c > 4096 && len(g.queue) < c/4 {
		// Down to a quarter of a past peak: rebuild both at the present
		// size, so that the peak's memory goes back (maps never shrink).
		// Amortized: the peak cost as many claims.
		g.queue = slices.Clone(g.queue)
		g.claims = make(map[claimKey]int64, len(g.queue))
		for _, e := range g.queue {
			g.claims[e.key] = e.exp
		}
	}
}

// push adds e to the heap.
func (g *MemoryReplayGuard) push(e claimEntry) {
	g.queue = append(g.queue, e)
	i := len(g.queue) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if g.queue[parent].exp <= g.queue[i].exp {
			break
		}
		g.queue[parent], g.queue[i] = g.queue[i], g.queue[parent]
		i = parent
	}
}

// down restores the heap below i.
func (g *MemoryReplayGuard) down(i int) {
	n := len(g.queue)
	for {
		least := i
		if l := 2*i + 1; l < n && g.queue[l].exp < g.queue[least].exp {
			least = l
		}
		if r := 2*i + 2; r < n && g.queue[r].exp < g.queue[least].exp {
			least = r
		}
		if least == i {
			return
		}
		g.queue[i], g.queue[least] = g.queue[least], g.queue[i]
		i = least
	}
}

var defaultReplay = &MemoryReplayGuard{}

// DefaultReplayGuard is the process-wide in-memory guard that machines use
// when their options name none.
func DefaultReplayGuard() ReplayGuard { return defaultReplay }
