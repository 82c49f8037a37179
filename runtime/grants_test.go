package runtime

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

func TestFlowTokens(t *testing.T) {
	k := RandomKeyring()
	now := time.Now()
	f := ConnectFlow{ID: newFlowID(), Subject: "alice", Tool: "t", Step: "s"}
	tok := mustSealFlow(k, f, "", now, time.Minute)
	// The token is ciphertext: its payload (the flow id, tool, step and
	// the subject's digest), read back by opening it, is nowhere in its
	// bytes.
	_, payload, err := k.Open(flowBinding(""), tok, now)
	if err != nil || !bytes.Contains(payload, []byte(f.ID)) {
		t.Fatalf("opened token: %q %v; want a payload holding the flow id", payload, err)
	}
	wantNotShown(t, decodeState(t, tok), payload)
	got, err := k.OpenFlow(tok, "", now)
	if err != nil || got.ID != f.ID || got.Tool != f.Tool || got.Step != f.Step || got.Subject != "" {
		t.Fatalf("%+v %v", got, err)
	}
	for subject, want := range map[string]bool{"alice": true, "": false, "alic": false, "alice ": false, "Alice": false} {
		if got.IsSubject(subject) != want {
			t.Errorf("IsSubject(%q): %v", subject, !want)
		}
	}
	if _, err := k.OpenFlow(tok, "", now.Add(2*time.Minute)); err != ErrInvalidFlowToken {
		t.Fatal("expired token opened")
	}
	// A requestState never opens as a flow token, nor the reverse.
	state := mustSeal(k, Binding{Tool: "t"}, 1, []byte(`{"f":"x","s":"alice"}`), now, time.Minute)
	if _, err := k.OpenFlow(state, "", now); err != ErrInvalidFlowToken {
		t.Fatal("a requestState opened as a flow token")
	}
	if _, _, err := k.Open(Binding{Tool: "t"}, tok, now); err == nil {
		t.Fatal("a flow token opened as a requestState")
	}
	if _, err := k.OpenFlow(strings.Repeat("A", MaxFlowTokenLen+1), "", now); err != ErrInvalidFlowToken {
		t.Fatal("oversized token")
	}
}

// wantNotShown fails when 8 bytes in a row of payload appear in sealed,
// the bytes of a state or token: what a client could read of it.
func wantNotShown(t *testing.T, sealed, payload []byte) {
	t.Helper()
	for i := 0; i+8 <= len(payload); i++ {
		if bytes.Contains(sealed, payload[i:i+8]) {
			t.Fatalf("sealed bytes show the payload: %q of %q", payload[i:i+8], payload)
		}
	}
}

func FuzzOpenFlow(f *testing.F) {
	k, _ := NewKeyring([]byte("fuzz-flow-key-0123456789abcdef!!"))
	now := time.Unix(1_800_000_000, 0)
	valid := mustSealFlow(k, ConnectFlow{ID: "id", Subject: "s", Tool: "t", Step: "k"}, "", now, time.Hour)
	f.Add(valid)
	f.Add("")
	f.Add("s1.")
	f.Add(valid[:len(valid)-1])
	f.Fuzz(func(t *testing.T, token string) {
		got, err := k.OpenFlow(token, "", now)
		if err != nil {
			if err != ErrInvalidFlowToken {
				t.Fatalf("error %v", err)
			}
			return
		}
		// Only the one flow ever sealed with this key can open (fuzz workers
		// seal their own copy, with another nonce).
		if got.ID != "id" || got.Tool != "t" || got.Step != "k" || got.Subject != "" || !got.IsSubject("s") {
			t.Fatalf("opened %q as %+v", token, got)
		}
	})
}

// TestAwaitFlow: the wait of a 2025-11-25 call for an accepted URL step
// ends when the flow finishes for the call's principal, and only then; it
// runs out, is skipped when negative, and ends with the call.
func TestAwaitFlow(t *testing.T) {
	ctx := context.Background()
	machine := func(wait time.Duration) (*Machine, *MemoryGrants) {
		g := &MemoryGrants{}
		return NewMachine("t", nil, Flow{}, &ToolOptions{Keys: mustKeyring(t, testKey(1)), Grants: g, LegacyURLWait: wait}), g
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

// TestFlowTokenLengthAnySubject: a flow token carries the digest of its
// subject, not the subject, so that its length is the same for a user id
// of 1 byte or 64 KiB and always within MaxFlowTokenLen (a 4 KiB subject
// made a 5,618-byte token when it was sealed as is). The binding is as
// strong: a subject that differs in its last byte only is not the flow's.
// A token that would still be too long (a tool name of 4 KiB) is an error
// of SealFlow, never a token that OpenFlow refuses.
func TestFlowTokenLengthAnySubject(t *testing.T) {
	k := RandomKeyring()
	now := time.Now()
	lengths := map[int]bool{}
	for _, n := range []int{1, 100, 1418, 1419, 4096, 64 << 10} {
		subject := strings.Repeat("u", n-1) + "!"
		tok, err := k.SealFlow(ConnectFlow{ID: newFlowID(), Subject: subject, Tool: "list_invoices", Step: "billing"}, "aud", now, time.Minute)
		if err != nil || len(tok) > MaxFlowTokenLen {
			t.Fatalf("a %d-byte subject: a %d-byte token, %v", n, len(tok), err)
		}
		lengths[len(tok)] = true
		f, err := k.OpenFlow(tok, "aud", now)
		if err != nil || !f.IsSubject(subject) || f.IsSubject(subject[:n-1]+"?") || f.IsSubject(subject[:n-1]) {
			t.Fatalf("a %d-byte subject: %v, or the binding does not hold", n, err)
		}
	}
	if len(lengths) != 1 {
		t.Errorf("token lengths depend on the subject: %v", lengths)
	}
	_, err := k.SealFlow(ConnectFlow{ID: newFlowID(), Subject: "alice", Tool: strings.Repeat("t", 4096), Step: "billing"}, "", now, time.Minute)
	if err != ErrFlowTokenTooLong {
		t.Fatalf("a 4 KiB tool name: %v", err)
	}
}

// TestFlowTokenOfEarlierRelease: a flow token sealed by the previous
// release, which carried the subject itself, still opens, for that subject
// only, during its short life, so that links handed out before an upgrade
// keep working.
func TestFlowTokenOfEarlierRelease(t *testing.T) {
	k := RandomKeyring()
	now := time.Now()
	tok := mustSeal(k, flowBinding(""), 0, []byte(`{"f":"flow-1","s":"alice","t":"list_invoices","k":"billing"}`), now, time.Minute)
	f, err := k.OpenFlow(tok, "", now)
	if err != nil || f.ID != "flow-1" || f.Step != "billing" || !f.IsSubject("alice") || f.IsSubject("mallory") {
		t.Fatalf("%+v %v", f, err)
	}
}
