package machine_test

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// skewConnect connects a client to each release, both sealing and opening
// with one key ring, over transport on era; a client of era "legacy"
// declares no elicitation (it is the one that meets confirmation tokens).
func skewConnect(t *testing.T, transport, era string) (one, two *mcp.ClientSession) {
	t.Helper()
	o := hosttest.Options{User: &hosttest.User{}, Manual: true}
	if era == "legacy" {
		o = hosttest.Options{}
	}
	return skewConnectWith(t, transport, era, o)
}

// skewConnectWith is skewConnect for clients of options o.
func skewConnectWith(t *testing.T, transport, era string, o hosttest.Options) (one, two *mcp.ClientSession) {
	t.Helper()
	opts := &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring(), Logger: slog.New(slog.DiscardHandler)}
	server := func(release string) func() *mcp.Server {
		return func() *mcp.Server { return skewServer(release, opts) }
	}
	return hosttest.Connect(t, server("v1"), transport, era, o), hosttest.Connect(t, server("v2"), transport, era, o)
}

// skewAnswers is one round's answers, by input key: each accepted with its content.
type skewAnswers map[string]map[string]any

func (a skewAnswers) responses() mcp.InputResponseMap {
	r := mcp.InputResponseMap{}
	for k, c := range a {
		r[k] = hosttest.Accept(c)
	}
	return r
}

// skewCall calls tool on cs with the state and the answers of the round.
func skewCall(t *testing.T, cs *mcp.ClientSession, tool, state string, a skewAnswers) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{},
		RequestState: state, InputResponses: a.responses()})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// skewAsked returns the keys and messages of an input_required result.
func skewAsked(res *mcp.CallToolResult) map[string]string {
	m := map[string]string{}
	for k, r := range res.InputRequests {
		if p, ok := r.(*mcp.ElicitParams); ok {
			m[k] = p.Message
		}
	}
	return m
}

// TestSkewAsksAgain: a flow starts on release 1 and its retry, answering
// release 1's last question, lands on release 2, whose tool asks other
// questions. Release 2 asks its own first question again, the tool's
// change said first (ToolChangedNote), under its first key; the handler
// of release 2 then completes with exactly the skewAnswers given to release
// 2's questions, never with one given to release 1's (measured on
// e662ecd: 8 of these 10 cases reached Complete with an answer to another
// question, and inserting or removing a step was HTTP 400).
func TestSkewAsksAgain(t *testing.T) {
	cases := []struct {
		tool  string
		one   []skewAnswers // the rounds answered on release 1; the last goes to release 2
		first string        // the key release 2 asks first
		two   []skewAnswers // the rounds answered on release 2 after that
		want  string        // release 2's result
	}{
		{"cleanup", []skewAnswers{{"purge": {"yes": false}}, {"archive": {"yes": true}}}, "archive",
			[]skewAnswers{{"archive": {"yes": false}}, {"purge": {"yes": true}}}, `v2 cleanup complete {"Archive":{"Yes":false},"Purge":{"Yes":true}}`},
		{"scope", []skewAnswers{{"scope": {"env": "prod"}}, {"ok": {"confirm": false}}}, "ok",
			[]skewAnswers{{"ok": {"confirm": true}}, {"scope": {"env": "dev"}}}, `v2 scope complete {"Ok":{"Confirm":true},"Scope":{"Env":"dev"}}`},
		{"notify", []skewAnswers{{"target": {"env": "prod"}}, {"notify": {"yes": true}}}, "target",
			[]skewAnswers{{"target": {"env": "dev"}}, {"approval": {"confirm": true}}}, `v2 notify complete {"Target":{"Env":"dev"},"Approval":{"Confirm":true}}`},
		{"rename", []skewAnswers{{"target": {"env": "prod"}}, {"ok": {"confirm": true}}}, "target",
			[]skewAnswers{{"target": {"environment": "dev"}}, {"ok": {"confirm": true}}}, `v2 rename complete {"Target":{"Environment":"dev"},"Ok":{"Confirm":true}}`},
		{"place", []skewAnswers{{"region": {"region": "asia"}}, {"ok": {"confirm": true}}}, "region",
			[]skewAnswers{{"region": {"region": "eu"}}, {"ok": {"confirm": true}}}, `v2 place complete {"Region":{"Region":"eu"},"Ok":{"Confirm":true}}`},
		{"drop", []skewAnswers{{"ok": {"confirm": true}}}, "ok",
			[]skewAnswers{{"ok": {"confirm": true}}}, `v2 drop complete {"Ok":{"Confirm":true}}`},
		{"grow", []skewAnswers{{"first": {"yes": true}}}, "first",
			[]skewAnswers{{"first": {"yes": false}}, {"second": {"yes": true}}}, `v2 grow complete {"First":{"Yes":false},"Second":{"Yes":true}}`},
		{"shrink", []skewAnswers{{"first": {"yes": true}}, {"second": {"yes": true}}}, "first",
			[]skewAnswers{{"first": {"yes": false}}}, `v2 shrink complete {"First":{"Yes":false}}`},
	}
	for _, transport := range hosttest.Transports {
		one, two := skewConnect(t, transport, "modern")
		for _, c := range cases {
			t.Run(transport+"/"+c.tool, func(t *testing.T) {
				res := skewCall(t, one, c.tool, "", nil)
				for _, a := range c.one[:len(c.one)-1] {
					res = skewCall(t, one, c.tool, res.RequestState, a)
				}
				res = skewCall(t, two, c.tool, res.RequestState, c.one[len(c.one)-1])
				q := skewAsked(res)
				if len(q) != 1 || !strings.HasPrefix(q[c.first], machine.ToolChangedNote) {
					t.Fatalf("release 2 after release 1's round: %s %v, want %q skewAsked again with the note", hosttest.Text(res), q, c.first)
				}
				for _, a := range c.two {
					if !res.NeedsInput() {
						t.Fatalf("completed early: %s", hosttest.Text(res))
					}
					res = skewCall(t, two, c.tool, res.RequestState, a)
				}
				if got := hosttest.Text(res); got != c.want {
					t.Fatalf("release 2's result %q, want %q", got, c.want)
				}
			})
		}
	}
}

// TestSkewUnchangedCompletes: a tool whose release 2 changed only what no
// person sees (its description, its preview's wording in the handler)
// keeps its in-flight flows: release 1's state and release 1's
// confirmation token both complete on release 2.
func TestSkewUnchangedCompletes(t *testing.T) {
	for _, transport := range hosttest.Transports {
		t.Run(transport, func(t *testing.T) {
			one, two := skewConnect(t, transport, "modern")
			res := skewCall(t, one, "same", "", nil)
			res = skewCall(t, one, "same", res.RequestState, skewAnswers{"target": {"env": "dev"}})
			res = skewCall(t, two, "same", res.RequestState, skewAnswers{"ok": {"confirm": true}})
			if got, want := hosttest.Text(res), `v2 same complete {"Target":{"Env":"dev"},"Ok":{"Confirm":true}}`; got != want {
				t.Fatalf("release 1's state on release 2: %q, want %q", got, want)
			}
			one, two = skewConnect(t, transport, "legacy")
			args := map[string]any{"service": "api", "env": "dev"}
			res = skewConfirm(t, two, "same", args, skewToken(t, one, "same", args))
			if got := hosttest.Text(res); !strings.HasPrefix(got, "v2 same complete") || !strings.Contains(got, `"Ok":{"Confirm":true}`) {
				t.Fatalf("release 1's token on release 2: %q %+v", got, res)
			}
		})
	}
}

// TestSkewPreviewToken: a confirmation token that release 1 made for its
// question completes nothing on release 2, which asks another: the skewCall is
// a tool error that says so and how to get a new preview, on both eras;
// release 2's own token then completes.
func TestSkewPreviewToken(t *testing.T) {
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				one, two := skewConnect(t, transport, "legacy")
				if era == "modern" {
					one, two = skewNoElicitation(t, transport)
				}
				args := map[string]any{"service": "api"}
				res := skewConfirm(t, two, "launch", args, skewToken(t, one, "launch", args))
				if !res.IsError || !strings.Contains(hosttest.Text(res), "made by another version of launch") {
					t.Fatalf("release 1's token on release 2: %+v %q", res, hosttest.Text(res))
				}
				res = skewConfirm(t, two, "launch", args, skewToken(t, two, "launch", args))
				if got, want := hosttest.Text(res), `v2 launch complete {"Ok":{"Confirm":true}}`; got != want {
					t.Fatalf("release 2's own token: %q, want %q", got, want)
				}
			})
		}
	}
}

// skewNoElicitation is skewConnect on 2026-07-28 for a client that declares no
// elicitation.
func skewNoElicitation(t *testing.T, transport string) (one, two *mcp.ClientSession) {
	t.Helper()
	return skewConnectWith(t, transport, "modern", hosttest.Options{Capabilities: &mcp.ClientCapabilities{}, Manual: true})
}

// skewToken calls tool on cs, a client that cannot ask, and returns the
// confirmation token of its preview.
func skewToken(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("%s preview: %+v %v", tool, res, err)
	}
	how := res.Content[1].(*mcp.TextContent).Text
	_, rest, _ := strings.Cut(how, `"`+elicitrt.PreviewTokenArgument+`": `)
	var token string
	if err := json.NewDecoder(strings.NewReader(rest)).Decode(&token); err != nil || token == "" {
		t.Fatalf("no token in %q", how)
	}
	return token
}

// skewConfirm calls tool on cs with args and the confirmation token.
func skewConfirm(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, token string) *mcp.CallToolResult {
	t.Helper()
	with := map[string]any{elicitrt.PreviewTokenArgument: token}
	for k, v := range args {
		with[k] = v
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: with})
	if err != nil {
		t.Fatalf("%s with a token: %v", tool, err)
	}
	return res
}
