package redisstore_test

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
// `once` confirmation, on two fixture processes sharing the Redis replay
// guard, over HTTP: the form on both eras, a confirmation token on both,
// and rounds sent by hand, whose replay on the other instance is refused.
// Then every key and value in Redis is read: there is one replay claim
// per claimed flow, each PREFIX replay:DIGEST holding v1:TOKEN with a
// TTL, and none holds the user, the service or an answer.
func TestRedisReplayClaimsHoldNoUserData(t *testing.T) {
	const (
		principal = "user-q8z3k"
		service   = "ledger-w7v2x"
		deployed  = "Deploying " + service + " to prod and posting in #deployments."
	)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := redistest.Start(t) // not skipped under -short, as when it ran in process
	procs, _ := twoInstancesOn(t, ctx, srv.URL, "-principal", principal)
	client, err := redisstore.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	args := map[string]any{"service": service}
	flows := 0
	for _, era := range hosttest.Eras {
		// The form: where (prod, notify), then the confirmation.
		u := &hosttest.User{Replies: []*mcp.ElicitResult{
			hosttest.Accept(map[string]any{"environment": "prod", "notify": true}),
			hosttest.Accept(map[string]any{"confirm": true}),
		}}
		cs := connectTo(t, ctx, procs[0].endpoint, era, u, false)
		if got, err := call(ctx, cs, args); err != nil || got != deployed || len(u.Asked) != 2 {
			t.Fatalf("%s: the form: %q %v, asked %d times", era, got, err, len(u.Asked))
		}
		if era == "modern" {
			flows++ // on 2025-11-25 the form is asked within one call: no state leaves the server, none is claimed
		}
		// A confirmation token, from a client that cannot ask.
		blind := connectTo(t, ctx, procs[0].endpoint, era, nil, false)
		prod := map[string]any{"service": service, "environment": "prod", "notify": true}
		prod[elicitrt.PreviewTokenArgument] = previewToken(t, ctx, blind, prod)
		for i, want := range []string{deployed, "was already used"} {
			if got, err := call(ctx, blind, prod); err != nil || !strings.Contains(got, want) {
				t.Fatalf("%s: the token, use %d: %q %v, want %q", era, i+1, got, err, want)
			}
		}
		flows++
	}
	// Rounds sent by hand; their replay, to the other instance on the
	// same Redis, is refused: the claim is in Redis.
	cs := connectTo(t, ctx, procs[0].endpoint, "modern", &hosttest.User{}, true)
	first, err := retry(ctx, cs, args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := retry(ctx, cs, args, first.RequestState, mcp.InputResponseMap{hosttest.OnlyKey(t, first): hosttest.Accept(map[string]any{"environment": "prod", "notify": true})})
	if err != nil {
		t.Fatal(err)
	}
	confirm := mcp.InputResponseMap{hosttest.OnlyKey(t, second): hosttest.Accept(map[string]any{"confirm": true})}
	if done, err := retry(ctx, cs, args, second.RequestState, confirm); err != nil || hosttest.Text(done) != deployed {
		t.Fatalf("confirm: %+v %v", done, err)
	}
	other := connectTo(t, ctx, procs[1].endpoint, "modern", &hosttest.User{}, true)
	if _, err := retry(ctx, other, args, second.RequestState, confirm); err == nil || !strings.Contains(err.Error(), "requestState already used") {
		t.Fatalf("replay: %v, want refused", err)
	}
	flows++

	// Every key and value in Redis.
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

// call calls deploy with args and returns the text of its result's one
// content ("" for any other).
func call(ctx context.Context, cs *mcp.ClientSession, args map[string]any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args})
	return hosttest.Text(res), err
}

// retry sends one round of deploy by hand: its state and responses.
func retry(ctx context.Context, cs *mcp.ClientSession, args map[string]any, state string, responses mcp.InputResponseMap) (*mcp.CallToolResult, error) {
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: state, InputResponses: responses})
}
