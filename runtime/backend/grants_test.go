package backend_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

func TestMemoryGrants(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	m := &backend.MemoryGrants{Now: func() time.Time { return now }}
	if _, done, _ := m.FlowSubject(ctx, "f"); done {
		t.Fatal("unknown flow done")
	}
	_ = m.CompleteFlow(ctx, "f", "alice", time.Minute)
	if s, done, _ := m.FlowSubject(ctx, "f"); !done || s != "alice" {
		t.Fatalf("flow: %q %v", s, done)
	}
	grant := []byte("g")
	_ = m.PutGrant(ctx, "alice", "billing", grant, time.Hour)
	grant[0] = 'x' // the store keeps its own copy
	if g, ok, _ := m.Grant(ctx, "alice", "billing"); !ok || string(g) != "g" {
		t.Fatalf("grant %q %v", g, ok)
	}
	if _, ok, _ := m.Grant(ctx, "bob", "billing"); ok {
		t.Fatal("grant of another user")
	}
	now = now.Add(2 * time.Minute)
	if _, done, _ := m.FlowSubject(ctx, "f"); done {
		t.Fatal("expired flow still done")
	}
	now = now.Add(time.Hour)
	if _, ok, _ := m.Grant(ctx, "alice", "billing"); ok {
		t.Fatal("expired grant still there")
	}
	_ = m.PutGrant(ctx, "alice", "forever", grant, 0)
	now = now.Add(1000 * time.Hour)
	if _, ok, _ := m.Grant(ctx, "alice", "forever"); !ok {
		t.Fatal("a grant without ttl expired")
	}
}

// TestMemoryGrantsClaimFlow: a flow is claimed once until the claim
// expires or is released, never once completed; of concurrent claims
// exactly one wins.
func TestMemoryGrantsClaimFlow(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	m := &backend.MemoryGrants{Now: func() time.Time { return now }}
	claim := func(id string) bool {
		t.Helper()
		ok, err := m.ClaimFlow(ctx, id, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !claim("f") || claim("f") {
		t.Fatal("claimed other than once")
	}
	if !claim("g") {
		t.Fatal("a claim of another flow")
	}
	_ = m.ReleaseFlow(ctx, "f")
	if !claim("f") {
		t.Fatal("released, not claimable")
	}
	now = now.Add(2 * time.Minute)
	if !claim("f") {
		t.Fatal("expired claim still held")
	}
	_ = m.CompleteFlow(ctx, "f", "alice", time.Hour)
	_ = m.ReleaseFlow(ctx, "f")
	if claim("f") {
		t.Fatal("a completed flow claimed again")
	}
	if s, done, _ := m.FlowSubject(ctx, "f"); !done || s != "alice" {
		t.Fatal("release undid the completion")
	}
	if _, done, _ := m.FlowSubject(ctx, "g"); done {
		t.Fatal("a claim is no completion")
	}

	var wins atomic.Int64
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			if ok, _ := m.ClaimFlow(ctx, "race", time.Minute); ok {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d concurrent claims won", wins.Load())
	}
}

func TestMemoryGrantsConcurrent(t *testing.T) {
	ctx := context.Background()
	m := &backend.MemoryGrants{}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				id := string(rune('a'+i)) + string(rune('a'+j%26))
				_, _ = m.ClaimFlow(ctx, id, time.Minute)
				_ = m.CompleteFlow(ctx, id, "u", time.Minute)
				_ = m.ReleaseFlow(ctx, id)
				_, _, _ = m.FlowSubject(ctx, id)
				_ = m.PutGrant(ctx, "u", id, []byte(id), 0)
				_, _, _ = m.Grant(ctx, "u", id)
			}
		}()
	}
	wg.Wait()
}

// TestMemoryGrantsDenyFlow: a denied flow is done with the empty subject,
// cannot be claimed again, and its record expires.
func TestMemoryGrantsDenyFlow(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	m := &backend.MemoryGrants{Now: func() time.Time { return now }}
	if ok, _ := m.ClaimFlow(ctx, "f", time.Minute); !ok {
		t.Fatal("first claim refused")
	}
	if err := m.DenyFlow(ctx, "f", 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if s, done, err := m.FlowSubject(ctx, "f"); !done || s != "" || err != nil {
		t.Fatalf("denied flow: %q %v %v", s, done, err)
	}
	now = now.Add(90 * time.Second) // the claim has expired, the denial not
	if ok, _ := m.ClaimFlow(ctx, "f", time.Minute); ok {
		t.Fatal("a denied flow was claimed again")
	}
	now = now.Add(time.Minute)
	if _, done, _ := m.FlowSubject(ctx, "f"); done {
		t.Fatal("the denial did not expire")
	}
}
