package upgrade

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/examples/upgrade/v1"
	"github.com/elicitgen/elicitgen/examples/upgrade/v2"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// toolChangedNote is the text a person sees before the first question of a
// flow that started again because its tool changed (the wire's literal).
const toolChangedNote = "This tool changed while you were answering, so its questions start again.\n\n"

// releases connects a client to each release, both sealing and opening
// with one key ring, over transport on era; a client of era "legacy"
// declares no elicitation (it is the one that meets confirmation tokens).
func releases(t *testing.T, transport, era string) (one, two *mcp.ClientSession) {
	t.Helper()
	o := hosttest.Options{User: &hosttest.User{}, Manual: true}
	if era == "legacy" {
		o = hosttest.Options{}
	}
	return releasesWith(t, transport, era, o)
}

// releasesWith is releases for clients of options o.
func releasesWith(t *testing.T, transport, era string, o hosttest.Options) (one, two *mcp.ClientSession) {
	t.Helper()
	opts := &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring(), Logger: slog.New(slog.DiscardHandler)}
	server := func(register func(*mcp.Server, *elicitrt.ToolOptions)) func() *mcp.Server {
		return func() *mcp.Server {
			s := mcp.NewServer(&mcp.Implementation{Name: "upgrade", Version: "v0"}, nil)
			register(s, opts)
			return s
		}
	}
	return hosttest.Connect(t, server(v1.Register), transport, era, o), hosttest.Connect(t, server(v2.Register), transport, era, o)
}

// answers is one round's answers, by input key: each accepted with its content.
type answers map[string]map[string]any

func (a answers) responses() mcp.InputResponseMap {
	r := mcp.InputResponseMap{}
	for k, c := range a {
		r[k] = hosttest.Accept(c)
	}
	return r
}

// call calls tool on cs with the state and the answers of the round.
func call(t *testing.T, cs *mcp.ClientSession, tool, state string, a answers) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{},
		RequestState: state, InputResponses: a.responses()})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// asked returns the keys and messages of an input_required result.
func asked(res *mcp.CallToolResult) map[string]string {
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
// of release 2 then completes with exactly the answers given to release
// 2's questions, never with one given to release 1's (measured on
// e662ecd: 8 of these 10 cases reached Complete with an answer to another
// question, and inserting or removing a step was HTTP 400).
func TestSkewAsksAgain(t *testing.T) {
	cases := []struct {
		tool  string
		one   []answers // the rounds answered on release 1; the last goes to release 2
		first string    // the key release 2 asks first
		two   []answers // the rounds answered on release 2 after that
		want  string    // release 2's result
	}{
		{"cleanup", []answers{{"purge": {"yes": false}}, {"archive": {"yes": true}}}, "archive",
			[]answers{{"archive": {"yes": false}}, {"purge": {"yes": true}}}, `v2 cleanup complete {"Archive":{"Yes":false},"Purge":{"Yes":true}}`},
		{"scope", []answers{{"scope": {"env": "prod"}}, {"ok": {"confirm": false}}}, "ok",
			[]answers{{"ok": {"confirm": true}}, {"scope": {"env": "dev"}}}, `v2 scope complete {"Ok":{"Confirm":true},"Scope":{"Env":"dev"}}`},
		{"notify", []answers{{"target": {"env": "prod"}}, {"notify": {"yes": true}}}, "target",
			[]answers{{"target": {"env": "dev"}}, {"approval": {"confirm": true}}}, `v2 notify complete {"Target":{"Env":"dev"},"Approval":{"Confirm":true}}`},
		{"rename", []answers{{"target": {"env": "prod"}}, {"ok": {"confirm": true}}}, "target",
			[]answers{{"target": {"environment": "dev"}}, {"ok": {"confirm": true}}}, `v2 rename complete {"Target":{"Environment":"dev"},"Ok":{"Confirm":true}}`},
		{"place", []answers{{"region": {"region": "asia"}}, {"ok": {"confirm": true}}}, "region",
			[]answers{{"region": {"region": "eu"}}, {"ok": {"confirm": true}}}, `v2 place complete {"Region":{"Region":"eu"},"Ok":{"Confirm":true}}`},
		{"drop", []answers{{"ok": {"confirm": true}}}, "ok",
			[]answers{{"ok": {"confirm": true}}}, `v2 drop complete {"Ok":{"Confirm":true}}`},
		{"grow", []answers{{"first": {"yes": true}}}, "first",
			[]answers{{"first": {"yes": false}}, {"second": {"yes": true}}}, `v2 grow complete {"First":{"Yes":false},"Second":{"Yes":true}}`},
		{"shrink", []answers{{"first": {"yes": true}}, {"second": {"yes": true}}}, "first",
			[]answers{{"first": {"yes": false}}}, `v2 shrink complete {"First":{"Yes":false}}`},
	}
	for _, transport := range hosttest.Transports {
		one, two := releases(t, transport, "modern")
		for _, c := range cases {
			t.Run(transport+"/"+c.tool, func(t *testing.T) {
				res := call(t, one, c.tool, "", nil)
				for _, a := range c.one[:len(c.one)-1] {
					res = call(t, one, c.tool, res.RequestState, a)
				}
				res = call(t, two, c.tool, res.RequestState, c.one[len(c.one)-1])
				q := asked(res)
				if len(q) != 1 || !strings.HasPrefix(q[c.first], toolChangedNote) {
					t.Fatalf("release 2 after release 1's round: %s %v, want %q asked again with the note", hosttest.Text(res), q, c.first)
				}
				for _, a := range c.two {
					if !res.NeedsInput() {
						t.Fatalf("completed early: %s", hosttest.Text(res))
					}
					res = call(t, two, c.tool, res.RequestState, a)
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
			one, two := releases(t, transport, "modern")
			res := call(t, one, "same", "", nil)
			res = call(t, one, "same", res.RequestState, answers{"target": {"env": "dev"}})
			res = call(t, two, "same", res.RequestState, answers{"ok": {"confirm": true}})
			if got, want := hosttest.Text(res), `v2 same complete {"Target":{"Env":"dev"},"Ok":{"Confirm":true}}`; got != want {
				t.Fatalf("release 1's state on release 2: %q, want %q", got, want)
			}
			one, two = releases(t, transport, "legacy")
			args := map[string]any{"service": "api", "env": "dev"}
			res = confirmWith(t, two, "same", args, previewToken(t, one, "same", args))
			if got := hosttest.Text(res); !strings.HasPrefix(got, "v2 same complete") || !strings.Contains(got, `"Ok":{"Confirm":true}`) {
				t.Fatalf("release 1's token on release 2: %q %+v", got, res)
			}
		})
	}
}

// TestSkewPreviewToken: a confirmation token that release 1 made for its
// question completes nothing on release 2, which asks another: the call is
// a tool error that says so and how to get a new preview, on both eras;
// release 2's own token then completes.
func TestSkewPreviewToken(t *testing.T) {
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				one, two := releases(t, transport, "legacy")
				if era == "modern" {
					one, two = noElicitation(t, transport)
				}
				args := map[string]any{"service": "api"}
				res := confirmWith(t, two, "launch", args, previewToken(t, one, "launch", args))
				if !res.IsError || !strings.Contains(hosttest.Text(res), "made by another version of launch") {
					t.Fatalf("release 1's token on release 2: %+v %q", res, hosttest.Text(res))
				}
				res = confirmWith(t, two, "launch", args, previewToken(t, two, "launch", args))
				if got, want := hosttest.Text(res), `v2 launch complete {"Ok":{"Confirm":true}}`; got != want {
					t.Fatalf("release 2's own token: %q, want %q", got, want)
				}
			})
		}
	}
}

// noElicitation is releases on 2026-07-28 for a client that declares no
// elicitation.
func noElicitation(t *testing.T, transport string) (one, two *mcp.ClientSession) {
	t.Helper()
	return releasesWith(t, transport, "modern", hosttest.Options{Capabilities: &mcp.ClientCapabilities{}, Manual: true})
}

// previewToken calls tool on cs, a client that cannot ask, and returns the
// confirmation token of its preview.
func previewToken(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
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

// confirmWith calls tool on cs with args and the confirmation token.
func confirmWith(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, token string) *mcp.CallToolResult {
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
