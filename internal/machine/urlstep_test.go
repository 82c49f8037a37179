package machine

import (
	"context"
	"errors"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// TestAwaitFlow: the wait of a 2025-11-25 call for an accepted URL step
// ends when the flow finishes for the call's principal, and only then; it
// runs out, is skipped when negative, and ends with the call.
func TestAwaitFlow(t *testing.T) {
	ctx := context.Background()
	machine := func(wait time.Duration) (*Machine, *backend.MemoryGrants) {
		g := &backend.MemoryGrants{}
		return NewMachine("t", nil, Flow{}, &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring(), Grants: g, LegacyURLWait: wait}), g
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
