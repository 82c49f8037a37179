package machine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/internal/seal"
)

func TestMemoryGrants(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	m := &MemoryGrants{Now: func() time.Time { return now }}
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
	m := &MemoryGrants{Now: func() time.Time { return now }}
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
	m := &MemoryGrants{}
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

// TestAwaitFlow: the wait of a 2025-11-25 call for an accepted URL step
// ends when the flow finishes for the call's principal, and only then; it
// runs out, is skipped when negative, and ends with the call.
func TestAwaitFlow(t *testing.T) {
	ctx := context.Background()
	machine := func(wait time.Duration) (*Machine, *MemoryGrants) {
		g := &MemoryGrants{}
		return NewMachine("t", nil, Flow{}, &ToolOptions{Keys: seal.RandomKeyring(), Grants: g, LegacyURLWait: wait}), g
	}

	m, g := machine(time.Minute)
	go func() {
		time.Sleep(50 * time.Millisecond)
		_ = g.CompleteFlow(ctx, "f1", "alice", time.Minute)
	}()
	start := time.Now()
	if finished, _, err := m.awaitFlow(ctx, "f1", "alice"); !finished || err != nil {
		t.Fatalf("finished by alice: %v, %v", finished, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("noticed after %v", d)
	}

	m, g = machine(300 * time.Millisecond)
	_ = g.CompleteFlow(ctx, "f2", "mallory", time.Minute)
	if finished, denied, err := m.awaitFlow(ctx, "f2", "alice"); finished || denied || err != nil {
		t.Fatalf("finished by another user: %v, %v", finished, err)
	}

	// A denied flow ends the wait at once, unfinished.
	m, g = machine(time.Minute)
	go func() {
		time.Sleep(50 * time.Millisecond)
		_ = g.DenyFlow(ctx, "f5", time.Minute)
	}()
	start = time.Now()
	if finished, denied, err := m.awaitFlow(ctx, "f5", "alice"); finished || !denied || err != nil || time.Since(start) > 10*time.Second {
		t.Fatalf("denied: %v, %v, %v after %v", finished, denied, err, time.Since(start))
	}
	if finished, denied, err := m.flowFinished(ctx, "f5", "alice"); finished || !denied || err != nil {
		t.Fatalf("flowFinished of a denied flow: %v %v %v", finished, denied, err)
	}
	// A principal that is empty never finishes a denied flow.
	if finished, denied, _ := m.flowFinished(ctx, "f5", ""); finished || !denied {
		t.Fatalf("flowFinished of a denied flow for the empty principal: %v %v", finished, denied)
	}

	m, _ = machine(-1)
	start = time.Now()
	if finished, _, err := m.awaitFlow(ctx, "f3", "alice"); finished || err != nil || time.Since(start) > time.Second {
		t.Fatalf("negative wait: %v, %v after %v", finished, err, time.Since(start))
	}

	m, _ = machine(time.Minute)
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	if finished, _, err := m.awaitFlow(cctx, "f4", "alice"); finished || !errors.Is(err, context.Canceled) {
		t.Fatalf("call ended: %v, %v", finished, err)
	}
}

// TestMemoryGrantsDenyFlow: a denied flow is done with the empty subject,
// cannot be claimed again, and its record expires.
func TestMemoryGrantsDenyFlow(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	m := &MemoryGrants{Now: func() time.Time { return now }}
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
