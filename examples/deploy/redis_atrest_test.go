package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/redisstore"
	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// TestRedisReplayClaimsHoldNoUserData: shared state at rest. Production
// deploys of a distinctive service, for a distinctive user, through the
// `once` confirmation, with the Redis replay guard over HTTP: the form on
// both eras, a confirmation token on both, and rounds sent by hand, whose
// replay is refused. Then every key and value in Redis is read: there is
// one replay claim per claimed flow, each PREFIX replay:DIGEST holding
// v1:TOKEN with a TTL, and none holds the user, the service or an
// answer.
func TestRedisReplayClaimsHoldNoUserData(t *testing.T) {
	const (
		principal = "user-q8z3k"
		service   = "ledger-w7v2x"
		deployed  = "Deploying " + service + " to prod and posting in #deployments."
	)
	srv := redistest.Start(t)
	client, err := redisstore.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	opts := &elicitrt.ToolOptions{Keys: keys, Replay: redisstore.NewReplayGuard(client, nil),
		Principal: func(*mcp.CallToolRequest) string { return principal }}
	args := map[string]any{"service": service}
	flows := 0
	for _, era := range hosttest.Eras {
		// The form: where (prod, notify), then the confirmation.
		u := &user{Replies: []*mcp.ElicitResult{
			accept(map[string]any{"environment": "prod", "notify": true}),
			accept(map[string]any{"confirm": true}),
		}}
		cs := hosttest.Connect(t, func() *mcp.Server { return newServer(opts) }, "http", era, hosttest.Options{User: u})
		if got, _, err := call(t, cs, args); err != nil || got != deployed || len(u.Asked) != 2 {
			t.Fatalf("%s: the form: %q %v, asked %d times", era, got, err, len(u.Asked))
		}
		if era == "modern" {
			flows++ // on 2025-11-25 the form is asked within one call: no state leaves the server, none is claimed
		}
		// A confirmation token, from a client that cannot ask.
		blind := hosttest.Connect(t, func() *mcp.Server { return newServer(opts) }, "http", era, hosttest.Options{})
		prod := map[string]any{"service": service, "environment": "prod", "notify": true}
		preview, err := blind.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: prod})
		if err != nil || preview.IsError || len(preview.Content) != 2 {
			t.Fatalf("%s: preview: %+v %v", era, preview, err)
		}
		prod[elicitrt.PreviewTokenArgument] = tokenOf(t, preview)
		for i, want := range []string{deployed, "was already used"} {
			if got, _, err := call(t, blind, prod); err != nil || !strings.Contains(got, want) {
				t.Fatalf("%s: the token, use %d: %q %v, want %q", era, i+1, got, err, want)
			}
		}
		flows++
	}
	// Rounds sent by hand; their replay, to another server on the same
	// Redis, is refused: the claim is in Redis.
	cs := manual(t, opts)
	first, err := retry(cs, args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := retry(cs, args, first.RequestState, mcp.InputResponseMap{onlyKey(t, first): accept(map[string]any{"environment": "prod", "notify": true})})
	if err != nil {
		t.Fatal(err)
	}
	confirm := mcp.InputResponseMap{onlyKey(t, second): accept(map[string]any{"confirm": true})}
	if done, err := retry(cs, args, second.RequestState, confirm); err != nil || hosttest.Text(done) != deployed {
		t.Fatalf("confirm: %+v %v", done, err)
	}
	if _, err := retry(manual(t, opts), args, second.RequestState, confirm); err == nil || !strings.Contains(err.Error(), "requestState already used") {
		t.Fatalf("replay: %v, want refused", err)
	}
	flows++

	// Every key and value in Redis.
	ctx := context.Background()
	raw := client.(*redis.Client)
	distinctive := []string{principal, service, "#deployments", `"environment"`, `"notify"`, `"confirm"`}
	keyForm := regexp.MustCompile(`^` + regexp.QuoteMeta(redisstore.DefaultPrefix) + `replay:[A-Za-z0-9_-]{43}$`)
	valueForm := regexp.MustCompile(`^v1:[0-9a-f]{32}$`)
	var stored []string
	iter := raw.Scan(ctx, 0, "*", 100).Iterator()
	for iter.Next(ctx) {
		stored = append(stored, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	if len(stored) != flows {
		t.Fatalf("%d keys in Redis after %d claimed single-use flows, want one each: %q", len(stored), flows, stored)
	}
	for _, k := range stored {
		var values []string
		switch typ := raw.Type(ctx, k).Val(); typ {
		case "string":
			values = append(values, raw.Get(ctx, k).Val())
		case "hash":
			for f, v := range raw.HGetAll(ctx, k).Val() {
				values = append(values, f, v)
			}
		default:
			t.Errorf("key %q is a %s", k, typ)
		}
		for _, s := range append([]string{k}, values...) {
			for _, d := range distinctive {
				if strings.Contains(s, d) {
					t.Errorf("Redis holds %q in clear: %q", d, s)
				}
			}
		}
		if !keyForm.MatchString(k) || len(values) != 1 || !valueForm.MatchString(values[0]) {
			t.Errorf("key %q holds %q: want PREFIX replay:DIGEST holding v1:TOKEN", k, values)
		}
		if ttl := raw.PTTL(ctx, k).Val(); ttl <= 0 || ttl > time.Hour {
			t.Errorf("key %q: TTL %v", k, ttl)
		}
	}
	t.Logf("%d replay claims in Redis for %d single-use flows", len(stored), flows)
}
