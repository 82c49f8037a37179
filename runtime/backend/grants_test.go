package backend_test

import (
	"context"
	"fmt"
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

// TestMemoryGrantsConcurrent: eight goroutines race, in the same order, to
// claim each of 200 flows, complete the ones they win with their own subject and store a
// grant for it, while reading every flow. Each flow is claimed exactly
// once; the claims won add up to the flows; each flow's subject is its
// winner's, and the winner's grant holds what it stored.
func TestMemoryGrantsConcurrent(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	m := &backend.MemoryGrants{Now: func() time.Time { return now }}
	const workers, flows = 8, 200
	var won [flows]atomic.Int32
	var perWorker [workers]int
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			subject := fmt.Sprintf("user-%d", w)
			for j := range flows {
				id := fmt.Sprintf("flow-%03d", j) // all in one order, so they contend
				ok, err := m.ClaimFlow(ctx, id, time.Minute)
				if err != nil {
					t.Errorf("ClaimFlow(%s): %v", id, err)
					return
				}
				if _, _, err := m.FlowSubject(ctx, id); err != nil {
					t.Errorf("FlowSubject(%s): %v", id, err)
				}
				if !ok {
					continue
				}
				won[idIndex(id)].Add(1)
				perWorker[w]++
				if err := m.CompleteFlow(ctx, id, subject, time.Minute); err != nil {
					t.Errorf("CompleteFlow(%s): %v", id, err)
				}
				if err := m.PutGrant(ctx, subject, id, []byte(subject+"/"+id), 0); err != nil {
					t.Errorf("PutGrant(%s): %v", id, err)
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, n := range perWorker {
		total += n
	}
	if total != flows {
		t.Errorf("the workers won %d claims in all, want one for each of the %d flows", total, flows)
	}
	for j := range flows {
		id := fmt.Sprintf("flow-%03d", j)
		if n := won[j].Load(); n != 1 {
			t.Errorf("%s was claimed %d times, want once", id, n)
			continue
		}
		subject, ok, err := m.FlowSubject(ctx, id)
		if err != nil || !ok {
			t.Errorf("FlowSubject(%s) = %q, %v, %v: want its winner's subject", id, subject, ok, err)
			continue
		}
		g, ok, err := m.Grant(ctx, subject, id)
		if err != nil || !ok || string(g) != subject+"/"+id {
			t.Errorf("Grant(%s, %s) = %q, %v, %v; want %q", subject, id, g, ok, err, subject+"/"+id)
		}
		if again, _ := m.ClaimFlow(ctx, id, time.Minute); again {
			t.Errorf("%s, completed, was claimed again", id)
		}
	}
}

// idIndex is the number of a "flow-NNN" id.
func idIndex(id string) int {
	var n int
	fmt.Sscanf(id, "flow-%03d", &n)
	return n
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
