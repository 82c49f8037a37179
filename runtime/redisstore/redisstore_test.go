package redisstore

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// quiet is a logger for stores whose failures a test provokes.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// newClient connects to srv and closes the client when t ends.
func newClient(t testing.TB, srv *redistest.Server) *redis.Client {
	t.Helper()
	c, err := NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*redis.Client)
}

func testKeys(t testing.TB) *elicitrt.Keyring {
	t.Helper()
	k, err := elicitrt.NewKeyring(bytes.Repeat([]byte{7}, elicitrt.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestReplayGuardClaimsOnceAcrossClients: 32 goroutines on two clients
// (two instances) claim one id: exactly one is first; the key is
// namespaced, versioned and expires.
func TestReplayGuardClaimsOnceAcrossClients(t *testing.T) {
	srv := redistest.Start(t)
	guards := []*ReplayGuard{
		NewReplayGuard(newClient(t, srv), &Options{Prefix: "app1:"}),
		NewReplayGuard(newClient(t, srv), &Options{Prefix: "app1:"}),
	}
	ctx := context.Background()
	for round := range 20 {
		id := fmt.Sprintf("flow-%d", round)
		var firsts atomic.Int32
		var wg sync.WaitGroup
		for i := range 32 {
			wg.Go(func() {
				first, err := guards[i%2].Claim(ctx, id, time.Minute)
				if err != nil {
					t.Error(err)
				}
				if first {
					firsts.Add(1)
				}
			})
		}
		wg.Wait()
		if n := firsts.Load(); n != 1 {
			t.Fatalf("%s: %d first claims, want 1", id, n)
		}
	}
	raw := newClient(t, srv)
	v, err := raw.Get(ctx, "app1:replay:flow-0").Result()
	if err != nil || !strings.HasPrefix(v, "v1:") || len(v) != len("v1:")+32 {
		t.Fatalf("stored claim %q, %v: want v1:TOKEN", v, err)
	}
	if ttl := raw.PTTL(ctx, "app1:replay:flow-0").Val(); ttl <= 50*time.Second || ttl > time.Minute {
		t.Fatalf("claim TTL %v, want about a minute", ttl)
	}
	// Another prefix is another deployment.
	other := NewReplayGuard(raw, &Options{Prefix: "app2:"})
	if first, err := other.Claim(ctx, "flow-0", time.Minute); err != nil || !first {
		t.Fatalf("other prefix: first=%v err=%v", first, err)
	}
}

// TestReplayGuardExpiry: a claim lasts until its expiry, then the id can
// be claimed again (no state of the flow opens by then).
func TestReplayGuardExpiry(t *testing.T) {
	srv := redistest.Start(t)
	g := NewReplayGuard(newClient(t, srv), nil)
	ctx := context.Background()
	if first, err := g.Claim(ctx, "x", 150*time.Millisecond); !first || err != nil {
		t.Fatalf("first claim: %v %v", first, err)
	}
	if first, err := g.Claim(ctx, "x", time.Minute); first || err != nil {
		t.Fatalf("second claim: %v %v, want false", first, err)
	}
	time.Sleep(300 * time.Millisecond)
	if first, err := g.Claim(ctx, "x", time.Minute); !first || err != nil {
		t.Fatalf("claim after expiry: %v %v, want first", first, err)
	}
	// No time left: refused (fails closed), nothing recorded.
	for _, ttl := range []time.Duration{0, -time.Second} {
		if first, err := g.Claim(ctx, "past", ttl); first || !errors.Is(err, backend.ErrClaimNoTime) {
			t.Fatalf("claim with ttl %v: %v %v, want ErrClaimNoTime", ttl, first, err)
		}
	}
	if n := newClient(t, srv).Exists(ctx, DefaultPrefix+"replay:past").Val(); n != 0 {
		t.Fatal("a refused claim was recorded")
	}
}

// TestGrantsFlowLifecycle: of 16 concurrent claims on two clients one
// wins; a released claim can be won again; a done (or denied) flow is
// never claimed again, not even after a release; the subject reads back.
func TestGrantsFlowLifecycle(t *testing.T) {
	srv := redistest.Start(t)
	keys := testKeys(t)
	stores := make([]*Grants, 2)
	for i := range stores {
		g, err := NewGrants(newClient(t, srv), &Options{Keys: keys})
		if err != nil {
			t.Fatal(err)
		}
		stores[i] = g
	}
	ctx := context.Background()
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			ok, err := stores[i%2].ClaimFlow(ctx, "f1", time.Minute)
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d claims won, want 1", wins.Load())
	}
	if _, done, err := stores[1].FlowSubject(ctx, "f1"); done || err != nil {
		t.Fatalf("claimed flow reads done=%v err=%v", done, err)
	}
	if err := stores[0].ReleaseFlow(ctx, "f1"); err != nil {
		t.Fatal(err)
	}
	if ok, err := stores[1].ClaimFlow(ctx, "f1", time.Minute); !ok || err != nil {
		t.Fatalf("claim after release: %v %v", ok, err)
	}
	if err := stores[1].CompleteFlow(ctx, "f1", "alice@example.com", time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, s := range stores {
		if sub, done, err := s.FlowSubject(ctx, "f1"); sub != "alice@example.com" || !done || err != nil {
			t.Fatalf("FlowSubject: %q %v %v", sub, done, err)
		}
	}
	if err := stores[0].ReleaseFlow(ctx, "f1"); err != nil {
		t.Fatal(err)
	}
	if ok, err := stores[0].ClaimFlow(ctx, "f1", time.Minute); ok || err != nil {
		t.Fatalf("done flow claimed again: %v %v", ok, err)
	}
	// Denied: done, with no subject.
	if ok, _ := stores[0].ClaimFlow(ctx, "f2", time.Minute); !ok {
		t.Fatal("claim f2")
	}
	if err := stores[0].DenyFlow(ctx, "f2", time.Minute); err != nil {
		t.Fatal(err)
	}
	if sub, done, err := stores[1].FlowSubject(ctx, "f2"); sub != "" || !done || err != nil {
		t.Fatalf("denied flow: %q %v %v", sub, done, err)
	}
	if ok, _ := stores[1].ClaimFlow(ctx, "f2", time.Minute); ok {
		t.Fatal("denied flow claimed again")
	}
	raw := newClient(t, srv)
	v := raw.Get(ctx, DefaultPrefix+"flow:f1").Val()
	if !strings.HasPrefix(v, "v1:done:") || strings.Contains(v, "alice") {
		t.Fatalf("done record %q: want v1:done: and the subject sealed", v)
	}
}

// sealedBytes is the bytes of a stored value, v1: and a sealed state
// (s2. and base64url): what anyone reading Redis sees.
func sealedBytes(t *testing.T, v string) []byte {
	t.Helper()
	enc, ok := strings.CutPrefix(v, "v1:s2.")
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if !ok || err != nil {
		t.Fatalf("stored %.60q: want v1:s2. and base64url (%v)", v, err)
	}
	return raw
}

// TestGrantsSealedAtRest: a grant is stored sealed, under a digest (no
// user id in key names); it reads back on another client; copied under
// another user's key it does not open; a store with other keys reads it
// as absent.
func TestGrantsSealedAtRest(t *testing.T) {
	srv := redistest.Start(t)
	keys := testKeys(t)
	a, _ := NewGrants(newClient(t, srv), &Options{Keys: keys})
	b, _ := NewGrants(newClient(t, srv), &Options{Keys: keys, Logger: quiet})
	ctx := context.Background()
	secret := []byte("provider-token-SECRET")
	if err := a.PutGrant(ctx, "alice", "billing", secret, time.Hour); err != nil {
		t.Fatal(err)
	}
	if g, ok, err := b.Grant(ctx, "alice", "billing"); !ok || err != nil || !bytes.Equal(g, secret) {
		t.Fatalf("Grant: %q %v %v", g, ok, err)
	}
	if _, ok, _ := b.Grant(ctx, "alice", "other"); ok {
		t.Fatal("grant under another step")
	}
	raw := newClient(t, srv)
	keysInDB := raw.Keys(ctx, "*").Val()
	if len(keysInDB) != 1 || strings.Contains(keysInDB[0], "alice") || !strings.HasPrefix(keysInDB[0], DefaultPrefix+"grant:") {
		t.Fatalf("keys %q", keysInDB)
	}
	v := raw.Get(ctx, keysInDB[0]).Val()
	// Sealed: the grant, which reads back above, is nowhere in the stored
	// bytes (base64-decoded), not even 8 bytes of it in a row.
	stored := sealedBytes(t, v)
	for i := 0; i+8 <= len(secret); i++ {
		if bytes.Contains(stored, secret[i:i+8]) {
			t.Fatalf("stored grant %q shows %q of the grant", v, secret[i:i+8])
		}
	}
	// Alice's sealed grant copied to Mallory's key does not open.
	b2 := grantBinding("mallory", "billing")
	raw.Set(ctx, b.grantKey(&b2), v, time.Hour)
	if g, ok, err := b.Grant(ctx, "mallory", "billing"); ok || err != nil {
		t.Fatalf("copied grant opened: %q %v %v", g, ok, err)
	}
	otherKeys, _ := NewGrants(raw, &Options{Keys: elicitrt.RandomKeyring(), Logger: quiet})
	if _, ok, err := otherKeys.Grant(ctx, "alice", "billing"); ok || err != nil {
		t.Fatalf("grant opened under other keys: %v %v", ok, err)
	}
	// Expiry.
	a.PutGrant(ctx, "bob", "billing", []byte("t"), 100*time.Millisecond)
	time.Sleep(250 * time.Millisecond)
	if _, ok, _ := a.Grant(ctx, "bob", "billing"); ok {
		t.Fatal("expired grant read")
	}
	if _, err := NewGrants(raw, nil); err == nil {
		t.Fatal("NewGrants without keys")
	}
}

// TestEveryKeyHasATTL: whatever the stores write carries a TTL (a grant
// without expiry gets Options.GrantTTL; a task, its expiry, kept by its
// updates) and the prefix.
func TestEveryKeyHasATTL(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	g, _ := NewGrants(c, &Options{Keys: testKeys(t), Prefix: "p:", GrantTTL: time.Hour})
	r := NewReplayGuard(c, &Options{Prefix: "p:"})
	ctx := context.Background()
	r.Claim(ctx, "id", time.Minute)
	g.ClaimFlow(ctx, "claimed", 0)
	g.ClaimFlow(ctx, "done", time.Minute)
	g.CompleteFlow(ctx, "done", "u", 0)
	g.DenyFlow(ctx, "denied", 0)
	g.PutGrant(ctx, "u", "n", []byte("g"), 0)
	tasks, _ := NewTasks(c, &Options{Keys: testKeys(t), Prefix: "p:"})
	now := time.Now()
	if err := tasks.Create(ctx, &backend.TaskRecord{ID: "task", Status: backend.TaskWorking, CreatedAt: now, Expires: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	tasks.Update(ctx, "task", func(r *backend.TaskRecord) error { r.StatusMessage = "m"; return nil })
	all := c.Keys(ctx, "*").Val()
	if len(all) != 6 {
		t.Fatalf("keys %q, want 6", all)
	}
	for _, k := range all {
		if !strings.HasPrefix(k, "p:") {
			t.Errorf("key %q without the prefix", k)
		}
		if ttl := c.PTTL(ctx, k).Val(); ttl <= 0 || ttl > time.Hour {
			t.Errorf("key %q: TTL %v", k, ttl)
		}
	}
}

// TestUnknownFormatIsAnError: a record of a later format is an error, never
// taken as absent (which could let a done flow be claimed again).
func TestUnknownFormatIsAnError(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	g, _ := NewGrants(c, &Options{Keys: testKeys(t), Logger: quiet})
	ctx := context.Background()
	c.Set(ctx, DefaultPrefix+"flow:f", "v2:done:whatever", time.Minute)
	if _, _, err := g.FlowSubject(ctx, "f"); err == nil || !strings.Contains(err.Error(), "format v2") {
		t.Fatalf("FlowSubject of v2: %v", err)
	}
	if ok, err := g.ClaimFlow(ctx, "f", time.Minute); ok || err != nil {
		t.Fatalf("ClaimFlow over a v2 record: %v %v", ok, err)
	}
	b := grantBinding("u", "n")
	c.Set(ctx, g.grantKey(&b), "v2:xyz", time.Minute)
	if _, _, err := g.Grant(ctx, "u", "n"); err == nil {
		t.Fatal("Grant of v2: no error")
	}
}

// TestFailClosed: with Redis killed, every call returns an error wrapping
// ErrUnavailable within the timeout, whose message names neither the
// address nor the cause; nothing is claimed; after a restart every call
// works again on the same clients.
func TestFailClosed(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	o := &Options{Keys: testKeys(t), Timeout: 300 * time.Millisecond, Logger: quiet}
	g, _ := NewGrants(c, o)
	r := NewReplayGuard(c, o)
	ctx := context.Background()
	if first, err := r.Claim(ctx, "before", time.Minute); !first || err != nil {
		t.Fatalf("claim before: %v %v", first, err)
	}
	srv.Stop()
	calls := map[string]func() error{
		"Claim": func() error {
			first, err := r.Claim(ctx, "during", time.Minute)
			if first {
				t.Error("claimed while Redis was down")
			}
			return err
		},
		"ClaimFlow": func() error {
			ok, err := g.ClaimFlow(ctx, "f", time.Minute)
			if ok {
				t.Error("flow claimed while Redis was down")
			}
			return err
		},
		"ReleaseFlow":  func() error { return g.ReleaseFlow(ctx, "f") },
		"CompleteFlow": func() error { return g.CompleteFlow(ctx, "f", "u", time.Minute) },
		"DenyFlow":     func() error { return g.DenyFlow(ctx, "f", time.Minute) },
		"FlowSubject": func() error {
			_, done, err := g.FlowSubject(ctx, "f")
			if done {
				t.Error("flow done while Redis was down")
			}
			return err
		},
		"PutGrant": func() error { return g.PutGrant(ctx, "u", "n", []byte("g"), time.Minute) },
		"Grant": func() error {
			_, ok, err := g.Grant(ctx, "u", "n")
			if ok {
				t.Error("grant read while Redis was down")
			}
			return err
		},
	}
	for name, f := range calls {
		start := time.Now()
		err := f()
		if !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s with Redis down: %v, want ErrUnavailable", name, err)
			continue
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s took %v with a 300ms timeout", name, took)
		}
		if msg := err.Error(); strings.Contains(msg, srv.Addr) || strings.Contains(msg, "refused") {
			t.Errorf("%s: message %q shows the cause", name, msg)
		}
	}
	srv.Restart()
	deadline := time.Now().Add(5 * time.Second)
	for {
		first, err := r.Claim(ctx, "after", time.Minute)
		if err == nil && first {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("claims did not work again after the restart: %v %v", first, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := g.PutGrant(ctx, "u", "n", []byte("g"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := g.Grant(ctx, "u", "n"); !ok || err != nil {
		t.Fatalf("Grant after restart: %v %v", ok, err)
	}
}

// TestNewClientURL: a bad URL is one error that does not repeat the URL
// (it may hold a password); a good one sets bounded timeouts.
func TestNewClientURL(t *testing.T) {
	for _, u := range []string{"http://user:hunter2@host/0", "redis://user:hunter2@host:notaport/0", "redis://user:hunter2@host:6379/x", ":"} {
		_, err := NewClient(u)
		if err == nil {
			t.Errorf("%q: no error", u)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: error shows the password: %v", u, err)
		}
	}
	c, err := NewClient("redis://127.0.0.1:6379/3")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	o := c.(*redis.Client).Options()
	if o.DB != 3 || o.DialTimeout != time.Second || o.ReadTimeout != time.Second || !o.ContextTimeoutEnabled {
		t.Fatalf("options %+v", o)
	}
}

// TestKilledRedisKeepsClaimsOnlyWithPersistence: a claim survives a
// SIGKILL and restart of a Redis with the append-only file fsynced on
// every write; without persistence the restarted Redis has forgotten it
// (the flow could complete again), which is why docs/guide/many-instances.md
// asks for appendonly.
func TestKilledRedisKeepsClaimsOnlyWithPersistence(t *testing.T) {
	ctx := context.Background()
	for _, persistent := range []bool{true, false} {
		start := redistest.Start
		if persistent {
			start = redistest.StartPersistent
		}
		srv := start(t)
		g := NewReplayGuard(newClient(t, srv), &Options{Logger: quiet})
		if first, err := g.Claim(ctx, "flow", time.Minute); !first || err != nil {
			t.Fatalf("claim: %v %v", first, err)
		}
		srv.Restart()
		var first bool
		var err error
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if first, err = g.Claim(ctx, "flow", time.Minute); err == nil || time.Now().After(deadline) {
				break
			}
		}
		if err != nil || first == persistent {
			t.Fatalf("persistent=%v: the claim after a kill and restart: first=%v err=%v", persistent, first, err)
		}
	}
}

// TestCallerGaveUp: a call whose context has ended returns the context's
// error, not ErrUnavailable, and claims nothing.
func TestCallerGaveUp(t *testing.T) {
	srv := redistest.Start(t)
	g := NewReplayGuard(newClient(t, srv), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	first, err := g.Claim(ctx, "flow", time.Minute)
	if first || !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnavailable) {
		t.Fatalf("claim with a cancelled context: %v %v", first, err)
	}
	if first, err := g.Claim(context.Background(), "flow", time.Minute); !first || err != nil {
		t.Fatalf("claim after: %v %v", first, err)
	}
}
