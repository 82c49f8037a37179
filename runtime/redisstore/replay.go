package redisstore

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// ReplayGuard is a backend.ReplayGuard on Redis: instances sharing one
// Redis (and one Options.Prefix) complete a flow that answered a `once`
// step once between them.
type ReplayGuard struct {
	c redis.UniversalClient
	o Options
}

var _ backend.ReplayGuard = (*ReplayGuard)(nil)

// NewReplayGuard returns the replay guard on c. o may be nil; its Keys
// are not used.
func NewReplayGuard(c redis.UniversalClient, o *Options) *ReplayGuard {
	return &ReplayGuard{c: c, o: o.withDefaults()}
}

// Claim implements backend.ReplayGuard: one atomic set-if-absent of
// PREFIX replay:ID, expiring after ttl (rounded up to a millisecond); a
// ttl that is not positive is refused with backend.ErrClaimNoTime.
// Of concurrent claims of one id, on any instances, exactly one reports
// first. A claim whose reply was lost and retried still reports first:
// the value is this claim's random token. When Redis does not answer, the
// error wraps ErrUnavailable and the flow does not complete.
func (g *ReplayGuard) Claim(ctx context.Context, id string, ttl time.Duration) (bool, error) {
	if ttl <= 0 {
		return false, backend.ErrClaimNoTime
	}
	first, err := call(ctx, &g.o, func(ctx context.Context) (bool, error) {
		return claim(ctx, g.c, g.o.Prefix+"replay:"+id, formatV1+newToken(), ttl)
	})
	if err != nil {
		return false, failed(ctx, &g.o, "replay claim", "the flow's single use cannot be checked", err)
	}
	return first, nil
}
