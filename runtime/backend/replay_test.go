package backend_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// claimIDs returns n distinct ids shaped like the runtime's (43 characters
// of base64url of a SHA-256 digest).
func claimIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		d := sha256.Sum256(binary.BigEndian.AppendUint64(nil, uint64(i)))
		ids[i] = base64.RawURLEncoding.EncodeToString(d[:])
	}
	return ids
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkMemoryReplayGuard claims b.N distinct flows, each remembered
// for ten minutes (all live at the end), and reports the live heap per
// remembered flow as B/flow.
func BenchmarkMemoryReplayGuard(b *testing.B) {
	ids := claimIDs(b.N)
	ctx := context.Background()
	until := 10 * time.Minute
	g := &backend.MemoryReplayGuard{MaxClaims: b.N}
	before := heapInUse()
	b.ResetTimer()
	for i := range b.N {
		if first, err := g.Claim(ctx, strings.Clone(ids[i]), until); !first || err != nil {
			b.Fatalf("claim %d: %v %v", i, first, err)
		}
	}
	b.StopTimer()
	after := heapInUse()
	b.ReportMetric(float64(int64(after)-int64(before))/float64(b.N), "B/flow")
	runtime.KeepAlive(g)
	runtime.KeepAlive(ids) // not counted in after
}

// fakeClock is a settable clock.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// TestMemoryReplayGuardOnce: of 32 concurrent claims of one id, one is
// first; a claim lasts until its expiry, then the id is free again.
func TestMemoryReplayGuardOnce(t *testing.T) {
	clock := &fakeClock{time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	g := &backend.MemoryReplayGuard{Now: clock.now}
	ctx := context.Background()
	var firsts atomic.Int32
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			if first, err := g.Claim(ctx, "flow", time.Minute); err != nil {
				t.Error(err)
			} else if first {
				firsts.Add(1)
			}
		})
	}
	wg.Wait()
	if firsts.Load() != 1 {
		t.Fatalf("%d first claims, want 1", firsts.Load())
	}
	clock.t = clock.t.Add(time.Minute - time.Nanosecond)
	if first, _ := g.Claim(ctx, "flow", time.Minute); first {
		t.Fatal("claimed again before its expiry")
	}
	clock.t = clock.t.Add(time.Nanosecond)
	if first, _ := g.Claim(ctx, "flow", time.Minute); !first {
		t.Fatal("not claimable at its expiry")
	}
	// No time left to remember a claim: refused, never first.
	for _, ttl := range []time.Duration{0, -time.Second} {
		if first, err := g.Claim(ctx, "past", ttl); first || !errors.Is(err, backend.ErrClaimNoTime) || g.Len() != 1 {
			t.Fatalf("claim with ttl %v: first=%v err=%v, %d remembered; want ErrClaimNoTime", ttl, first, err, g.Len())
		}
	}
}

// TestMemoryReplayGuardFullRefuses: at MaxClaims unexpired claims, a new
// flow is refused with ErrReplayGuardFull and no claim is forgotten (each
// still refuses its flow); once the soonest expires, a new flow is
// claimed.
func TestMemoryReplayGuardFullRefuses(t *testing.T) {
	clock := &fakeClock{time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	g := &backend.MemoryReplayGuard{Now: clock.now, MaxClaims: 3}
	ctx := context.Background()
	for i, ttl := range []time.Duration{3 * time.Minute, time.Minute, 2 * time.Minute} {
		if first, err := g.Claim(ctx, fmt.Sprint(i), ttl); !first || err != nil {
			t.Fatalf("claim %d: %v %v", i, first, err)
		}
	}
	if first, err := g.Claim(ctx, "new", time.Minute); first || !errors.Is(err, backend.ErrReplayGuardFull) {
		t.Fatalf("claim over the cap: %v %v, want ErrReplayGuardFull", first, err)
	}
	for i := range 3 {
		if first, err := g.Claim(ctx, fmt.Sprint(i), time.Minute); first || err != nil {
			t.Fatalf("remembered claim %d: %v %v, want refused as used", i, first, err)
		}
	}
	clock.t = clock.t.Add(time.Minute) // claim 1 expires
	if first, err := g.Claim(ctx, "new", time.Minute); !first || err != nil {
		t.Fatalf("claim after an expiry: %v %v", first, err)
	}
	if first, _ := g.Claim(ctx, "0", time.Minute); first {
		t.Fatal("claim 0 forgotten")
	}
}

// TestMemoryReplayGuardBounded: 220,000 flows claimed over 220 seconds
// with 10-second claims keep at most 10,000 remembered and the heap a few
// MiB; a burst to 100,000 live claims, once expired, gives its memory
// back.
func TestMemoryReplayGuardBounded(t *testing.T) {
	clock := &fakeClock{time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	g := &backend.MemoryReplayGuard{Now: clock.now}
	ctx := context.Background()
	ids := claimIDs(220_000)
	base := heapInUse()
	peak := 0
	for _, id := range ids {
		clock.t = clock.t.Add(time.Millisecond)
		if first, err := g.Claim(ctx, id, 10*time.Second); !first || err != nil {
			t.Fatalf("claim: %v %v", first, err)
		}
		peak = max(peak, g.Len())
	}
	grown := int64(heapInUse()) - int64(base)
	t.Logf("220,000 flows, 10,000 live at a time: at most %d remembered, heap grew %d KiB", peak, grown>>10)
	if peak > 10_001 || grown > 4<<20 {
		t.Fatalf("%d remembered at the peak, heap grew %d bytes", peak, grown)
	}
	// A burst: 100,000 live at once; then, expired, a trickle.
	for _, id := range ids[:100_000] {
		g.Claim(ctx, "burst"+id, 10*time.Second)
	}
	atPeak := int64(heapInUse()) - int64(base)
	for _, id := range ids[100_000:100_100] {
		clock.t = clock.t.Add(time.Second)
		g.Claim(ctx, "trickle"+id, 10*time.Second)
	}
	after := int64(heapInUse()) - int64(base)
	t.Logf("burst: %d KiB at its peak, %d KiB after it expired (%d remembered)", atPeak>>10, after>>10, g.Len())
	if g.Len() > 11 || after > atPeak/4 {
		t.Fatalf("after the burst: %d remembered, %d bytes (peak %d)", g.Len(), after, atPeak)
	}
	runtime.KeepAlive(ids)
}
