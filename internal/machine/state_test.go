package machine_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// The request state of the deploy tool (deployserver_test.go) over
// streamable HTTP: sealed, bound to the tool, the arguments, the
// principal and the audience, expiring, opened by every instance that
// shares the key ring, single-use where it confirms; and the rounds and
// answers it carries, checked and bounded.

// wantInvalidState fails unless err is the refusal of a requestState as a
// client receives it: -32602, "invalid or expired requestState", no data.
func wantInvalidState(t *testing.T, what string, err error) {
	t.Helper()
	var rpcErr *jsonrpc.Error
	if !machine.IsInvalidState(err) || !errors.As(err, &rpcErr) || rpcErr.Data != nil {
		t.Errorf("%s: want -32602 without detail, got %v", what, err)
	}
}

func TestStateIsSealedAndBound(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	cs := manual(t, &elicitrt.ToolOptions{Keys: deployKeys, Now: clock})
	args := map[string]any{"service": "api"}
	first, err := retry(cs, args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	key := hosttest.OnlyKey(t, first)
	if key != "target" {
		t.Fatalf("key %q", key)
	}
	answer := mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "prod"}}}

	// A state from another tool's flow, other arguments, tampered or
	// truncated: all rejected alike.
	s := first.RequestState
	_, err = retry(cs, map[string]any{"service": "web"}, s, answer)
	wantInvalidState(t, "other arguments", err)
	_, err = retry(cs, args, s[:len(s)-1]+string("AB"[len(s)%2]), answer)
	wantInvalidState(t, "tampered", err)
	_, err = retry(cs, args, s[:len(s)/2], answer)
	wantInvalidState(t, "truncated", err)
	_, err = retry(cs, args, s+"-TAMPERED", answer)
	wantInvalidState(t, "suffix", err)

	// Expired: the same state after the TTL.
	now = now.Add(elicitrt.DefaultStateTTL + time.Second)
	_, err = retry(cs, args, s, answer)
	wantInvalidState(t, "expired", err)
	now = now.Add(-elicitrt.DefaultStateTTL - time.Second)

	// Another server instance with the same key serves the retry.
	other := manual(t, &elicitrt.ToolOptions{Keys: deployKeys, Now: clock})
	second, err := retry(other, args, s, answer)
	if err != nil {
		t.Fatal(err)
	}
	if k := hosttest.OnlyKey(t, second); k != "confirm" {
		t.Fatalf("second round key %q", k)
	}
	// The state is ciphertext: what it carries (the answer "prod", the
	// flow's identity), read back by opening it, is nowhere in its bytes.
	wantSealed(t, second.RequestState, seal.Binding{Tool: "deploy", ArgsDigest: seal.DigestArguments(json.RawMessage(`{"service":"api"}`))}, now, `"environment":"prod"`)
	// An instance with a different key cannot open it.
	stranger, _ := elicitrt.NewKeyring([]byte("fedcba9876543210fedcba9876543210"))
	_, err = retry(manual(t, &elicitrt.ToolOptions{Keys: stranger, Now: clock}), args, s, answer)
	wantInvalidState(t, "other key", err)

	// Rotation: a ring with a new first key still opens the old state, and
	// its own states do not open on the old ring.
	rotated, _ := elicitrt.NewKeyring([]byte("fedcba9876543210fedcba9876543210"), []byte("0123456789abcdef0123456789abcdef"))
	rot := manual(t, &elicitrt.ToolOptions{Keys: rotated, Now: clock})
	third, err := retry(rot, args, second.RequestState, mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}})
	if err != nil || third.NeedsInput() || third.Content[0].(*mcp.TextContent).Text != "Deploying api to prod without notifying." {
		t.Fatalf("rotated ring: %+v %v", third, err)
	}
	fresh, err := retry(rot, args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = retry(cs, args, fresh.RequestState, mcp.InputResponseMap{"target": answer[key]})
	wantInvalidState(t, "new key on old ring", err)
}

// wantSealed opens state under b and fails unless its payload holds want
// (so that the check proves something) and no 8 bytes of the payload in a
// row appear in the state's bytes, base64-decoded: what a client reading
// the state would see of the payload.
func wantSealed(t *testing.T, state string, b seal.Binding, now time.Time, want string) {
	t.Helper()
	_, payload, err := (*seal.Keyring)(deployKeys).Open(b, state, now)
	if err != nil || !bytes.Contains(payload, []byte(want)) {
		t.Fatalf("opened state: %q %v; want a payload holding %s", payload, err, want)
	}
	enc, ok := strings.CutPrefix(state, "s2.")
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if !ok || err != nil {
		t.Fatalf("state %.40q: not s2. and base64url: %v", state, err)
	}
	for i := 0; i+8 <= len(payload); i++ {
		if bytes.Contains(raw, payload[i:i+8]) {
			t.Fatalf("the state's bytes show its payload: %q of %q", payload[i:i+8], payload)
		}
	}
}

func TestAnswersAreCheckedAndReasked(t *testing.T) {
	cs := manual(t, &elicitrt.ToolOptions{Keys: deployKeys})
	args := map[string]any{"service": "api"}
	first, err := retry(cs, args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	// A missing answer (here: an unknown key only) is asked again, with a new key.
	again, err := retry(cs, args, first.RequestState, mcp.InputResponseMap{"nope": &mcp.ElicitResult{Action: "accept"}})
	if err != nil {
		t.Fatal(err)
	}
	if k := hosttest.OnlyKey(t, again); k != "target.2" {
		t.Fatalf("re-ask key %q", k)
	}
	// Invalid content is asked again with the reason.
	bad, err := retry(cs, args, again.RequestState, mcp.InputResponseMap{"target.2": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "moon"}}})
	if err != nil {
		t.Fatal(err)
	}
	k := hosttest.OnlyKey(t, bad)
	msg := bad.InputRequests[k].(*mcp.ElicitParams).Message
	if k != "target.3" || !strings.Contains(msg, "environment: must be one of Development, Staging, Production") {
		t.Fatalf("re-ask: %q %q", k, msg)
	}
	// An old key is not accepted in a later round.
	stale, err := retry(cs, args, bad.RequestState, mcp.InputResponseMap{"target.2": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "dev"}}})
	if err != nil || !stale.NeedsInput() {
		t.Fatalf("old key accepted: %+v %v", stale, err)
	}
	// Bounded: after three invalid answers, a tool error.
	state := stale.RequestState
	for i := 0; ; i++ {
		key := hosttest.OnlyKey(t, stale)
		res, err := retry(cs, args, state, mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": 1.0}}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.NeedsInput() {
			if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "gave up after 3 invalid answers") {
				t.Fatalf("end: %+v", res)
			}
			break
		}
		if i > 3 {
			t.Fatal("not bounded")
		}
		stale, state = res, res.RequestState
	}
}

func TestLoadShedding(t *testing.T) {
	shed := true
	cs := manual(t, &elicitrt.ToolOptions{Keys: deployKeys, Overloaded: func(context.Context) bool { return shed }})
	res, err := retry(cs, map[string]any{"service": "api"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.NeedsInput() || res.InputRequests == nil || len(res.InputRequests) != 0 || res.RequestState == "" {
		t.Fatalf("want an empty input request map and a state: %+v", res)
	}
	shed = false
	next, err := retry(cs, map[string]any{"service": "api"}, res.RequestState, nil)
	if err != nil || hosttest.OnlyKey(t, next) != "target" {
		t.Fatalf("after shedding: %+v %v", next, err)
	}
}

func TestStateBoundToPrincipal(t *testing.T) {
	as := func(user string) *elicitrt.ToolOptions {
		return &elicitrt.ToolOptions{Keys: deployKeys, Principal: func(*mcp.CallToolRequest) string { return user }}
	}
	args := map[string]any{"service": "api"}
	first, err := retry(manual(t, as("alice")), args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	answer := mcp.InputResponseMap{hosttest.OnlyKey(t, first): &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "dev"}}}
	_, err = retry(manual(t, as("bob")), args, first.RequestState, answer)
	wantInvalidState(t, "other principal", err)
	res, err := retry(manual(t, as("alice")), args, first.RequestState, answer)
	if err != nil || res.NeedsInput() {
		t.Fatalf("same principal: %+v %v", res, err)
	}
}

// TestStateBoundToAudience: two servers sharing a key ring under different
// audiences do not take each other's states; two instances of one server
// (one audience) do.
func TestStateBoundToAudience(t *testing.T) {
	at := func(audience string) *elicitrt.ToolOptions {
		return &elicitrt.ToolOptions{Keys: deployKeys, Audience: audience}
	}
	args := map[string]any{"service": "api"}
	first, err := retry(manual(t, at("https://deploy.example")), args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	answer := mcp.InputResponseMap{hosttest.OnlyKey(t, first): &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "dev"}}}
	for _, other := range []string{"https://staging.deploy.example", ""} {
		_, err = retry(manual(t, at(other)), args, first.RequestState, answer)
		wantInvalidState(t, "audience "+other, err)
	}
	res, err := retry(manual(t, at("https://deploy.example")), args, first.RequestState, answer)
	if err != nil || res.NeedsInput() {
		t.Fatalf("same audience: %+v %v", res, err)
	}
}

// TestConfirmationIsSingleUse replays the retry that confirmed a production
// deploy: the second one is refused, on this instance and on another one
// sharing the replay guard: Complete, which deploys, runs once.
func TestConfirmationIsSingleUse(t *testing.T) {
	guard := &backend.MemoryReplayGuard{}
	opts := &elicitrt.ToolOptions{Keys: deployKeys, Replay: guard}
	cs := manual(t, opts)
	args := map[string]any{"service": "api", "environment": "prod"}
	first, err := retry(cs, args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	key := hosttest.OnlyKey(t, first)
	confirm := mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
	done, err := retry(cs, args, first.RequestState, confirm)
	if err != nil || done.NeedsInput() || !strings.HasPrefix(hosttest.Text(done), "Deploying api to prod") {
		t.Fatalf("confirm: %+v %v", done, err)
	}
	for _, c := range []*mcp.ClientSession{cs, manual(t, opts)} {
		res, err := retry(c, args, first.RequestState, confirm)
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || werr.Message != "requestState already used" {
			t.Fatalf("replay: %+v %v", res, err)
		}
	}
}

// TestRoundsAreBounded: a call takes at most DefaultMaxRounds rounds of
// questions, missing answers included (they do not count as invalid ones),
// and the call that would need one more ends in a tool error: the Go SDK's
// client stops after ten attempts.
func TestRoundsAreBounded(t *testing.T) {
	cs := manual(t, &elicitrt.ToolOptions{Keys: deployKeys})
	args := map[string]any{"service": "api"}
	res, err := retry(cs, args, "", nil)
	for rounds := 1; err == nil && res.NeedsInput(); rounds++ {
		if rounds > elicitrt.DefaultMaxRounds {
			t.Fatalf("round %d asked", rounds)
		}
		res, err = retry(cs, args, res.RequestState, mcp.InputResponseMap{"nope": &mcp.ElicitResult{Action: "accept"}})
	}
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "target: no answer after 9 rounds of questions") {
		t.Fatalf("end: %+v", res)
	}
}
