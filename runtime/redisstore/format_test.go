package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/internal/redistest"
)

// Records of format v1, as this release wrote them into Redis (sealed with
// testKeys' key, expiring in 2126). Later releases must go on reading them
// (docs/many-instances.md, "Formats and upgrades"): do not regenerate
// these; add the next format's records beside them.
const (
	v1GrantKey = "elicitgen:grant:qID4vgyzvR-zTs98_2V8aDUM8qqh7baZdrq_RGzqzKM" // alice, billing
	v1Grant    = "v1:s1.iPUP7VRyUGMxcaEm6mlwWQpSJQBIxplKQkwHz-Hoos5pHCg0nyfhq3kFUgjwNKpFwRnNtdVrHcqQwHIoAMAV7DV98d4"
	v1FlowKey  = "elicitgen:flow:flow-v1"
	v1FlowDone = "v1:done:s1.iPUP7ZIn4VzYCk_AVTMKAHFk7VStO36VFG9u5rQtC_jYL-oDwsOouDqb-mQPr74NTQ" // alice
)

// TestFormatV1Opens: records written by the release that introduced
// format v1 read back: the grant, the done flow (never claimed again),
// a flow claim and a replay claim (both still refusing).
func TestFormatV1Opens(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	ctx := context.Background()
	for k, v := range map[string]string{
		v1GrantKey:                    v1Grant,
		v1FlowKey:                     v1FlowDone,
		"elicitgen:flow:claimed-v1":   "v1:claim:00112233445566778899aabbccddeeff",
		"elicitgen:replay:claimed-v1": "v1:00112233445566778899aabbccddeeff",
	} {
		if err := c.Set(ctx, k, v, time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
	}
	g, _ := NewGrants(c, &Options{Keys: testKeys(t)})
	if grant, ok, err := g.Grant(ctx, "alice", "billing"); err != nil || !ok || string(grant) != "provider-token-for-alice" {
		t.Fatalf("v1 grant: %q %v %v", grant, ok, err)
	}
	if sub, done, err := g.FlowSubject(ctx, "flow-v1"); err != nil || !done || sub != "alice" {
		t.Fatalf("v1 done flow: %q %v %v", sub, done, err)
	}
	if ok, err := g.ClaimFlow(ctx, "flow-v1", time.Minute); ok || err != nil {
		t.Fatalf("v1 done flow claimed: %v %v", ok, err)
	}
	if _, done, err := g.FlowSubject(ctx, "claimed-v1"); done || err != nil {
		t.Fatalf("v1 claim reads done=%v err=%v", done, err)
	}
	if ok, err := g.ClaimFlow(ctx, "claimed-v1", time.Minute); ok || err != nil {
		t.Fatalf("v1 claimed flow claimed again: %v %v", ok, err)
	}
	if err := g.ReleaseFlow(ctx, "claimed-v1"); err != nil {
		t.Fatal(err)
	}
	if ok, err := g.ClaimFlow(ctx, "claimed-v1", time.Minute); !ok || err != nil {
		t.Fatalf("v1 claim released, then: %v %v", ok, err)
	}
	if first, err := NewReplayGuard(c, nil).Claim(ctx, "claimed-v1", time.Now().Add(time.Minute)); first || err != nil {
		t.Fatalf("v1 replay claim claimed again: %v %v", first, err)
	}
}
