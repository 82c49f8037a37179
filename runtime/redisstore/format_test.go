package redisstore

import (
	"context"
	"strings"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// Records of format v1, as this release wrote them into Redis (sealed with
// testKeys' key, expiring in 2126). Later releases must go on reading them
// (docs/guide/many-instances.md, "Formats and upgrades"): do not regenerate
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
	if first, err := NewReplayGuard(c, nil).Claim(ctx, "claimed-v1", time.Minute); first || err != nil {
		t.Fatalf("v1 replay claim claimed again: %v %v", first, err)
	}
}

// A task record of format v1 (TaskRecordFormat 1), as this release writes
// it under PREFIX task:task-v1: sealed with testKeys' key, expiring in
// 2126, version 3, input_required with a question and an answer not taken
// yet. Do not regenerate it; add the next format's records beside it.
const v1Task = "v1:s1.iPUP7e7BA4H0HlgMDmsMcRyNwfWshsX0ijpyT8VaYoiq8iMyBMkTBHrk8EYX04MIZzNafFkt5RKhEXJnUp1FQyPYAk0Dclka0tpEJRLIOitP9xtjxztOTgvVGXWwp9bspOKzOSCJ0_nWtEQ3XDC8_0KCHpM6_06gKsB037fnaEckNMwCj_6AdJyZC5AlqV7NOT_VFjUKwoqYbioxW19Kl2Cx1Tea0_mX8appuiee-scrlqYEwsi6CMALMREFLPvWe7v0GY98CFy4_5DXJZfUdUtnmQxgGFMfN_9oEfuKlnPNaPQzpU6HjdnmzPGMuvIiopWrwXp0K1mLSY2ltb2aq9etMSTp6zjG8Sksi9oEG4kaMnvPk39KqcK8nwXN4DL70hzQEJmQXH7gBNldkgABJ1JoU3dGCFATb0ebvg1-jrydEZMdH4lriBm2NSf3OqKrI8F0r9_PY_hLCLj1i4JWHseEWH14l2U3bBLYyMep-HH3s6xrfb9qdumuU4q5pjLTkxBbuLekBTd8W9RfxEM6T3jfaKtH-5wpTGOpmMZqXlb8V6X55IA2Ce149sjnFwM"

// TestTaskFormatV1Opens: the task record written by the release that
// introduced it reads back, field by field, and updates (version 4); a
// record sealed by hand now, from format 1's JSON and the documented
// layout (one part, round 0, bound to the id and the part count), opens
// too.
func TestTaskFormatV1Opens(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	s, _ := NewTasks(c, &Options{Keys: testKeys(t)})
	ctx := context.Background()
	if err := c.Set(ctx, DefaultPrefix+"task:task-v1", v1Task, time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Get(ctx, "task-v1")
	if err != nil || rec == nil {
		t.Fatalf("v1 task: %v %v", rec, err)
	}
	if rec.Format != 1 || rec.Principal != "alice" || rec.Tool != "report" || rec.Status != backend.TaskInputRequired ||
		rec.StatusMessage != "waiting" || rec.Version != 3 || rec.PollInterval != time.Second || rec.Expires.Year() != 2126 ||
		!strings.Contains(string(rec.InputRequests["salaries"]), "Include salaries?") ||
		string(rec.Answers["format"]) != `{"action":"accept","content":{"format":"pdf"}}` {
		t.Fatalf("v1 task read as %+v", rec)
	}
	if r, err := s.Update(ctx, "task-v1", func(r *backend.TaskRecord) error { r.Answers = nil; return nil }); err != nil || r.Version != 4 {
		t.Fatalf("v1 task update: %v %v", r, err)
	}

	js := `{"v":1,"id":"by-hand","tool":"report","status":"working","created":"2026-12-01T00:00:00Z","updated":"2026-12-01T00:00:00Z","expires":"2126-01-01T00:00:00Z","ver":1}`
	sealed, err := testKeys(t).SealRecord(elicitrt.RecordBinding{Kind: "elicitgen task record", Digest: digest("elicitgen task record v1", "by-hand", "1")},
		0, []byte(js), time.Now(), 100*365*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	c.Set(ctx, DefaultPrefix+"task:by-hand", "v1:"+sealed, time.Hour)
	if r, err := s.Get(ctx, "by-hand"); err != nil || r == nil || r.Status != backend.TaskWorking || r.Version != 1 {
		t.Fatalf("a v1 record sealed by hand: %+v %v", r, err)
	}
}
