package backend

import (
	"context"
	"sync"
	"time"
)

// GrantStore keeps what URL-mode flows produce: which flows finished, and
// for whom, and the grants (tokens of a third-party service, opaque here)
// stored per user. Implementations must be safe for concurrent use. When
// several server instances serve one tool, they share one store (a
// database, Redis...) behind this interface; MemoryGrants serves one
// process.
//
// A flow finishes at most once: the callback claims it (ClaimFlow) before
// it exchanges or records anything, then either records it (PutGrant and
// CompleteFlow when the person allowed access, DenyFlow when they refused
// at the provider) or gives the claim back (ReleaseFlow) when the attempt
// failed. On a key-value store, ClaimFlow is one atomic set-if-absent with
// expiry (Redis: SET flowclaim:ID 1 NX PX ttl), ReleaseFlow deletes that
// key, CompleteFlow sets flowdone:ID to the subject with expiry, and
// DenyFlow sets flowdone:ID to the empty string with expiry.
type GrantStore interface {
	// ClaimFlow reserves flowID for one completion attempt. It reports true
	// to one caller only, atomically (of concurrent callers, across every
	// process sharing the store, exactly one wins), and false while an
	// earlier claim lasts or once flowID has completed. A claim lasts ttl,
	// unless it is released.
	ClaimFlow(ctx context.Context, flowID string, ttl time.Duration) (claimed bool, err error)
	// ReleaseFlow drops the claim of flowID, so that the flow can be
	// attempted again. Only the caller that won the claim calls it, when
	// its attempt failed before CompleteFlow.
	ReleaseFlow(ctx context.Context, flowID string) error
	// CompleteFlow records that flowID finished for subject; the record
	// expires after ttl. Callers claim the flow first (ClaimFlow).
	CompleteFlow(ctx context.Context, flowID, subject string, ttl time.Duration) error
	// DenyFlow records that flowID ended without a grant because the person
	// refused at the third party; the record expires after ttl. Callers
	// claim the flow first (ClaimFlow). FlowSubject then reports the flow
	// done with the empty subject, and ClaimFlow refuses it, as after
	// CompleteFlow.
	DenyFlow(ctx context.Context, flowID string, ttl time.Duration) error
	// FlowSubject returns the subject flowID finished for, if it did: the
	// empty subject when it was denied (DenyFlow). A completed flow always
	// has a subject (CompleteFlow is never called with an empty one).
	FlowSubject(ctx context.Context, flowID string) (subject string, done bool, err error)
	// PutGrant stores subject's grant under name (a URL step's key) for ttl
	// (0: no expiry).
	PutGrant(ctx context.Context, subject, name string, grant []byte, ttl time.Duration) error
	// Grant returns subject's grant under name, if any and not expired.
	Grant(ctx context.Context, subject, name string) (grant []byte, ok bool, err error)
}

// MemoryGrants is the in-process GrantStore. The zero value is ready.
type MemoryGrants struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu     sync.Mutex
	claims map[string]expiring[struct{}]
	flows  map[string]expiring[string]
	grants map[[2]string]expiring[[]byte]
}

type expiring[T any] struct {
	v   T
	exp time.Time // zero: never
}

func (e expiring[T]) live(now time.Time) bool { return e.exp.IsZero() || now.Before(e.exp) }

func (m *MemoryGrants) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func expiry(now time.Time, ttl time.Duration) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return now.Add(ttl)
}

// ClaimFlow implements GrantStore.
func (m *MemoryGrants) ClaimFlow(ctx context.Context, flowID string, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	if _, done := m.flows[flowID]; done {
		return false, nil
	}
	if _, taken := m.claims[flowID]; taken {
		return false, nil
	}
	if m.claims == nil {
		m.claims = map[string]expiring[struct{}]{}
	}
	m.claims[flowID] = expiring[struct{}]{struct{}{}, expiry(now, ttl)}
	return true, nil
}

// ReleaseFlow implements GrantStore.
func (m *MemoryGrants) ReleaseFlow(ctx context.Context, flowID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.claims, flowID)
	return nil
}

// CompleteFlow implements GrantStore.
func (m *MemoryGrants) CompleteFlow(ctx context.Context, flowID, subject string, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.flows == nil {
		m.flows = map[string]expiring[string]{}
	}
	now := m.now()
	m.sweep(now)
	m.flows[flowID] = expiring[string]{subject, expiry(now, ttl)}
	return nil
}

// DenyFlow implements GrantStore: the record of a denied flow is the
// completion record with the empty subject.
func (m *MemoryGrants) DenyFlow(ctx context.Context, flowID string, ttl time.Duration) error {
	return m.CompleteFlow(ctx, flowID, "", ttl)
}

// FlowSubject implements GrantStore.
func (m *MemoryGrants) FlowSubject(ctx context.Context, flowID string) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.flows[flowID]
	if !ok || !f.live(m.now()) {
		return "", false, nil
	}
	return f.v, true, nil
}

// PutGrant implements GrantStore.
func (m *MemoryGrants) PutGrant(ctx context.Context, subject, name string, grant []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.grants == nil {
		m.grants = map[[2]string]expiring[[]byte]{}
	}
	m.grants[[2]string{subject, name}] = expiring[[]byte]{append([]byte(nil), grant...), expiry(m.now(), ttl)}
	return nil
}

// Grant implements GrantStore.
func (m *MemoryGrants) Grant(ctx context.Context, subject, name string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.grants[[2]string{subject, name}]
	if !ok || !g.live(m.now()) {
		return nil, false, nil
	}
	return append([]byte(nil), g.v...), true, nil
}

// sweep drops expired flows and claims; called with mu held, on writes.
func (m *MemoryGrants) sweep(now time.Time) {
	for id, f := range m.flows {
		if !f.live(now) {
			delete(m.flows, id)
		}
	}
	for id, c := range m.claims {
		if !c.live(now) {
			delete(m.claims, id)
		}
	}
}

var defaultGrants = &MemoryGrants{}

// DefaultGrants is the process-wide in-memory store that machines and
// connect handlers use when their options name none.
func DefaultGrants() GrantStore { return defaultGrants }
