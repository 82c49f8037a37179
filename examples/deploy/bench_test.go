package main

// The round-trip benchmark: the deploy tool's generated machine against a
// hand-written handler that does the same with raw Go SDK types, both
// driven by the SDK client over the in-memory transport on 2026-07-28
// (call → input_required → retry with the answer → complete). The forms'
// decode benchmarks are here too, as the package is main.

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/bench/baseline"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
)

// handDeploy is the deploy tool written by hand against the SDK: the same
// steps, fallbacks and checks as the generated machine (arguments prefill
// the target, capability check, enum and boolean decoding with re-asks,
// production confirmation, decline and cancel, a sealed, expiring
// requestState bound to the tool, the arguments and the principal,
// single-use completion), in the most direct code.
type handDeploy struct {
	aead cipher.AEAD

	mu   sync.Mutex
	used map[[32]byte]time.Time
}

// The hand-written handler's precomputed schemas.
var (
	handTargetSchema  = json.RawMessage(`{"type":"object","properties":{"environment":{"type":"string","title":"Environment","oneOf":[{"const":"dev","title":"Development"},{"const":"staging","title":"Staging"},{"const":"prod","title":"Production"}]},"notify":{"type":"boolean","title":"Notify","description":"Post in #deployments","default":false}},"required":["environment"]}`)
	handConfirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean","description":"Deploy to production now."}},"required":["confirm"]}`)
	handInputSchema   = json.RawMessage(`{"type":"object","required":["service"],"properties":{"service":{"type":"string","description":"the service to deploy"},"environment":{"type":"string","title":"Environment","oneOf":[{"const":"dev","title":"Development"},{"const":"staging","title":"Staging"},{"const":"prod","title":"Production"}]},"notify":{"type":"boolean","title":"Notify","description":"Post in #deployments","default":false},"confirmation_token":{"type":"string","description":"Only to confirm a previewed action: the confirmation_token that a previous call of this tool returned with its preview, passed with the same other arguments. Never invent one."}},"additionalProperties":false}`)
	errHandState      = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid or expired requestState"}
)

// handState is the hand-written handler's state: which question is out,
// how often it was asked, and the target answer so far.
type handState struct {
	step, asks byte // step 0: target, 1: confirm
	env        byte // index into handEnvs, 0 when unanswered
	notify     bool
	haveTarget bool
	reason     string // why the last answer was invalid
}

var (
	handEnvs  = [...]Environment{"", Dev, Staging, Prod}
	handSteps = [...]string{"target", "confirm"}
)

func newHandServer(key []byte) *mcp.Server {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	h := &handDeploy{aead: aead, used: map[[32]byte]time.Time{}}
	server := mcp.NewServer(&mcp.Implementation{Name: "deploy", Version: "v1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{
		Name: "deploy",
		// The same tool list as the generated server's; the baseline serves
		// the rounds of clients that can ask (the preview path, for clients
		// that cannot, is not part of the benchmarked round).
		Description: "Deploys a service to an environment, asking which one unless the model supplied it, and asking for confirmation before production; a client that cannot ask gets a preview and a confirmation token instead, and deploys by calling again with it.",
		InputSchema: handInputSchema,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: elicitimpl.Bool(true)},
	}, h.handle)
	return server
}

func (h *handDeploy) ad(args json.RawMessage, principal string) []byte {
	digest := sha256.Sum256(args)
	ad := make([]byte, 0, 8+32+len(principal))
	ad = append(ad, "deploy\x00"...)
	ad = append(ad, digest[:]...)
	return append(ad, principal...)
}

func (h *handDeploy) seal(st handState, ad []byte, now time.Time) string {
	pt := make([]byte, 12, 12+8+5+len(st.reason)+16)
	rand.Read(pt[:12])
	pt = binary.BigEndian.AppendUint64(pt, uint64(now.Add(10*time.Minute).UnixNano()))
	var flags byte
	if st.notify {
		flags |= 1
	}
	if st.haveTarget {
		flags |= 2
	}
	pt = append(pt, st.step, st.asks, st.env, flags)
	pt = append(pt, st.reason...)
	sealed := h.aead.Seal(pt[12:12], pt[:12], pt[12:], ad)
	return base64.RawURLEncoding.EncodeToString(pt[:12+len(sealed)])
}

func (h *handDeploy) open(s string, ad []byte, now time.Time) (handState, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(raw) < 12+12+16 {
		return handState{}, false
	}
	pt, err := h.aead.Open(raw[12:12], raw[:12], raw[12:], ad)
	if err != nil || now.UnixNano() > int64(binary.BigEndian.Uint64(pt)) || pt[10] >= byte(len(handEnvs)) {
		return handState{}, false
	}
	return handState{step: pt[8], asks: pt[9], env: pt[10], notify: pt[11]&1 != 0, haveTarget: pt[11]&2 != 0, reason: string(pt[12:])}, true
}

func (h *handDeploy) handle(ctx context.Context, req *mcp.CallToolRequest, args DeployArgs) (*mcp.CallToolResult, any, error) {
	principal := ""
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		principal = req.Extra.TokenInfo.UserID
	}
	ad := h.ad(req.Params.Arguments, principal)
	now := time.Now()
	var st handState
	if s := req.Params.RequestState; s != "" {
		var ok bool
		if st, ok = h.open(s, ad, now); !ok {
			return nil, nil, errHandState
		}
		key := handSteps[st.step&1]
		if st.asks > 1 {
			key += "." + strconv.Itoa(int(st.asks))
		}
		if resp, _ := req.Params.InputResponses[key].(*mcp.ElicitResult); resp != nil {
			switch resp.Action {
			case "decline", "cancel":
				verb := "declined"
				if resp.Action == "cancel" {
					verb = "cancelled"
				}
				return elicitrt.Text(fmt.Sprintf("Nothing was deployed: the %s question was %s.", handSteps[st.step], verb)), nil, nil
			case "accept":
				st.reason = ""
				if st.step == 0 {
					env, notify, reason := handDecodeTarget(resp.Content)
					if reason == "" {
						st.env, st.notify, st.haveTarget, st.asks = env, notify, true, 0
					} else {
						st.reason = reason
					}
				} else {
					confirm, ok := resp.Content["confirm"].(bool)
					if !ok {
						st.reason = "confirm: must be a boolean"
					} else {
						if !h.claim(s, now) {
							return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestState already used"}
						}
						if !confirm {
							return elicitrt.Text(fmt.Sprintf("Nothing was deployed: %s to production was not confirmed.", args.Service)), nil, nil
						}
						return h.complete(args, st), nil, nil
					}
				}
			}
		}
	} else {
		// The arguments may answer the target question.
		var pre struct {
			Environment *string `json:"environment"`
			Notify      *bool   `json:"notify"`
		}
		if json.Unmarshal(req.Params.Arguments, &pre) == nil && pre.Environment != nil {
			content := map[string]any{"environment": *pre.Environment}
			if pre.Notify != nil {
				content["notify"] = *pre.Notify
			}
			env, notify, reason := handDecodeTarget(content)
			if reason != "" {
				return elicitrt.ToolError("invalid arguments: " + reason), nil, nil
			}
			st.env, st.notify, st.haveTarget = env, notify, true
		}
	}
	caps := req.ClientCapabilities()
	canAsk := caps != nil && caps.Elicitation != nil && (caps.Elicitation.Form != nil || caps.Elicitation.URL == nil)
	if !st.haveTarget {
		if !canAsk {
			return elicitrt.ToolError("environment is required: one of dev, staging, prod"), nil, nil
		}
		return h.ask(st, 0, "Which environment should I deploy to?", handTargetSchema, ad, now), nil, nil
	}
	if handEnvs[st.env] != Prod {
		if s := req.Params.RequestState; s != "" && !h.claim(s, now) {
			return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestState already used"}
		}
		return h.complete(args, st), nil, nil
	}
	if !canAsk {
		return nil, nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: "this tool needs the client to support form-mode elicitation",
			Data: json.RawMessage(`{"requiredCapabilities":{"elicitation":{"form":{}}}}`)}
	}
	if st.step == 0 {
		st.asks = 0
	}
	return h.ask(st, 1, "Deploy "+args.Service+" to production now?", handConfirmSchema, ad, now), nil, nil
}

func (h *handDeploy) ask(st handState, step byte, message string, schema json.RawMessage, ad []byte, now time.Time) *mcp.CallToolResult {
	if st.asks >= 3 && st.reason != "" {
		return elicitrt.ToolError("gave up after 3 invalid answers: " + st.reason)
	}
	if st.reason != "" {
		message += "\n\nPlease correct: " + st.reason + "."
	}
	st.step = step
	st.asks++
	key := handSteps[step]
	if st.asks > 1 {
		key += "." + strconv.Itoa(int(st.asks))
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{key: &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: schema}},
		RequestState:  h.seal(st, ad, now),
	}
}

func (h *handDeploy) complete(args DeployArgs, st handState) *mcp.CallToolResult {
	notify := "without notifying"
	if st.notify {
		notify = "and posting in #deployments"
	}
	return elicitrt.Text(fmt.Sprintf("Deploying %s to %s %s.", args.Service, handEnvs[st.env], notify))
}

// claim makes a state usable once to complete the flow.
func (h *handDeploy) claim(state string, now time.Time) bool {
	id := sha256.Sum256([]byte(state))
	h.mu.Lock()
	defer h.mu.Unlock()
	if exp, ok := h.used[id]; ok && now.Before(exp) {
		return false
	}
	h.used[id] = now.Add(10 * time.Minute)
	if len(h.used)%1024 == 0 {
		for k, exp := range h.used {
			if !now.Before(exp) {
				delete(h.used, k)
			}
		}
	}
	return true
}

// handDecodeTarget decodes the target form by hand: environment required,
// one of the three; notify an optional boolean.
func handDecodeTarget(content map[string]any) (env byte, notify bool, reason string) {
	raw, present := content["environment"]
	if !present {
		return 0, false, "environment: is required"
	}
	s, ok := raw.(string)
	if !ok {
		return 0, false, "environment: must be a string"
	}
	switch s {
	case "dev":
		env = 1
	case "staging":
		env = 2
	case "prod":
		env = 3
	default:
		return 0, false, "environment: must be one of dev, staging, prod"
	}
	if raw, ok := content["notify"]; ok {
		if notify, ok = raw.(bool); !ok {
			return 0, false, "notify: must be a boolean"
		}
	}
	return env, notify, ""
}

var benchKey = []byte("0123456789abcdef0123456789abcdef")

// newServers are the two servers of the comparison.
var newServers = []struct {
	name string
	new  func() *mcp.Server
}{
	{"generated", func() *mcp.Server {
		return newServer(&elicitrt.ToolOptions{Keys: keys, Replay: &backend.MemoryReplayGuard{}})
	}},
	{"hand", func() *mcp.Server { return newHandServer(benchKey) }},
}

// connectBench connects an SDK client (2026-07-28, its own MRTR loop on)
// whose user answers every question with the next of replies, cycling.
func connectBench(tb testing.TB, server *mcp.Server, replies ...*mcp.ElicitResult) *mcp.ClientSession {
	tb.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	n := 0
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			r := replies[n%len(replies)]
			n++
			return r, nil
		},
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ss.Close() })
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// TestHandDeployMatches keeps the round-trip comparison honest: the
// hand-written handler behaves like the generated machine on the flows.
func TestHandDeployMatches(t *testing.T) {
	cases := []struct {
		args    map[string]any
		replies []*mcp.ElicitResult
	}{
		{map[string]any{"service": "api"}, []*mcp.ElicitResult{accept(map[string]any{"environment": "staging", "notify": true})}},
		{map[string]any{"service": "api"}, []*mcp.ElicitResult{accept(map[string]any{"environment": "prod"}), accept(map[string]any{"confirm": true})}},
		{map[string]any{"service": "api"}, []*mcp.ElicitResult{accept(map[string]any{"environment": "prod"}), accept(map[string]any{"confirm": false})}},
		{map[string]any{"service": "api"}, []*mcp.ElicitResult{{Action: "decline"}}},
		{map[string]any{"service": "api"}, []*mcp.ElicitResult{accept(map[string]any{"environment": "prod"}), {Action: "cancel"}}},
		{map[string]any{"service": "api"}, []*mcp.ElicitResult{accept(map[string]any{"environment": "moon"}), accept(map[string]any{"environment": "dev"})}},
		{map[string]any{"service": "api", "environment": "dev"}, nil},
		{map[string]any{"service": "api", "environment": "prod", "notify": true}, []*mcp.ElicitResult{accept(map[string]any{"confirm": true})}},
	}
	var tools [2]string
	for i, c := range cases {
		var got [2]string
		for j, s := range newServers {
			cs := connectBench(t, s.new(), append(c.replies, &mcp.ElicitResult{Action: "cancel"})...)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: c.args})
			if err != nil {
				got[j] = "error: " + err.Error()
			} else {
				got[j] = fmt.Sprint(res.IsError, " ", textOf(res))
			}
			if i == 0 {
				list, err := cs.ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(list.Tools)
				tools[j] = string(b)
			}
		}
		if got[0] != got[1] {
			t.Errorf("case %d: generated %q, hand %q", i, got[0], got[1])
		}
	}
	if tools[0] != tools[1] {
		t.Errorf("tools differ:\ngenerated %s\nhand      %s", tools[0], tools[1])
	}
}

func textOf(res *mcp.CallToolResult) string {
	if len(res.Content) != 1 {
		return fmt.Sprint(res.Content)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// BenchmarkRoundTrip is one deploy to staging: call, input_required with
// the target question, retry with the answer, complete.
func BenchmarkRoundTrip(b *testing.B) {
	answer := accept(map[string]any{"environment": "staging", "notify": true})
	const want = "Deploying api to staging and posting in #deployments."
	for _, s := range newServers {
		b.Run("deploy/"+s.name, func(b *testing.B) {
			cs := connectBench(b, s.new(), answer)
			params := &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "api"}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil {
					b.Fatal(err)
				}
				if got := textOf(res); got != want {
					b.Fatalf("got %q", got)
				}
			}
		})
	}
}

// Accepted content of the deploy forms, as the SDK hands it over.
var (
	targetContent       = map[string]any{"environment": "staging", "notify": true}
	confirmationContent = map[string]any{"confirm": true}
)

func BenchmarkDecode(b *testing.B) {
	b.Run("deploy.Target", func(b *testing.B) {
		baseline.BenchDecode[Target, *Target, Target](b, Target{}.ElicitSchema(), targetContent)
	})
	b.Run("deploy.Confirmation", func(b *testing.B) {
		baseline.BenchDecode[Confirmation, *Confirmation, Confirmation](b, Confirmation{}.ElicitSchema(), confirmationContent)
	})
}

// TestBenchedContents keeps the decode benchmarks honest: both decoders
// accept the content they are measured on, and agree on it.
func TestBenchedContents(t *testing.T) {
	var target Target
	if tj := baseline.DecodeBoth[Target, *Target, Target](t, &target, targetContent); target != tj || target != (Target{Staging, true}) {
		t.Errorf("Target: generated %+v, jsonschema-go %+v", target, tj)
	}
	var c Confirmation
	if cj := baseline.DecodeBoth[Confirmation, *Confirmation, Confirmation](t, &c, confirmationContent); c != cj || !c.Confirm {
		t.Errorf("Confirmation: generated %+v, jsonschema-go %+v", c, cj)
	}
}
