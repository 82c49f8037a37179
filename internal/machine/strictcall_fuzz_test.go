package machine_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/serve"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/formcheck"
)

// flowsReply is a JSON-RPC response to tools/call, as far as the fuzz target
// reads it.
type flowsReply struct {
	Result *struct {
		ResultType   string `json:"resultType"`
		IsError      bool   `json:"isError"`
		RequestState string `json:"requestState"`
		Content      []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Code int `json:"code"`
	} `json:"error"`
}

// flowsPost posts one modern tools/call of tool to h, with requestState
// (omitted when empty) and inputResponses (raw JSON, omitted when empty),
// and returns the HTTP status and the body's JSON-RPC message.
func flowsPost(h http.Handler, tool, requestState, inputResponses string) (int, string) {
	req := httptest.NewRequest("POST", "/", strings.NewReader(flowsCallBody(tool, requestState, inputResponses)))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool} {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	raw, _ := io.ReadAll(rec.Result().Body)
	data := string(raw)
	if i := strings.Index(data, "data: "); i >= 0 {
		data = strings.TrimSpace(data[i+len("data: "):])
	}
	return rec.Code, data
}

// flowsCallBody is the JSON-RPC request of flowsPost. inputResponses is
// spliced in as it is.
func flowsCallBody(tool, requestState, inputResponses string) string {
	params := `"name":` + strconv.Quote(tool) + `,"arguments":{"topic":"t"}`
	if requestState != "" {
		params += `,"requestState":` + strconv.Quote(requestState)
	}
	if inputResponses != "" {
		params += `,"inputResponses":` + inputResponses
	}
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + params +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`
}

// flowsHandler is the flows server behind the HTTP handler, answering
// in plain JSON.
func flowsHandler() http.Handler {
	server := newFlowsServer()
	return serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, &elicitrt.HTTPOptions{JSONResponse: true})
}

// flowsFirstState is the requestState of tool's first round.
func flowsFirstState(f testing.TB, h http.Handler, tool string) string {
	_, data := flowsPost(h, tool, "", "")
	var r flowsReply
	if err := json.Unmarshal([]byte(data), &r); err != nil || r.Result == nil || r.Result.RequestState == "" {
		f.Fatalf("%s: first round: %s", tool, data)
	}
	return r.Result.RequestState
}

// flowsCompleted posts a fuzzed retry of tool and checks the reply's shape:
// a JSON-RPC error or a result (HTTP 400 for a body that is not JSON). It
// returns completed true for a completed result that is not a tool error,
// with its text and the inputResponses as the SDK decodes them.
func flowsCompleted(t *testing.T, h http.Handler, tool, state, inputResponses string) (completed bool, text string, responses mcp.InputResponseMap) {
	t.Helper()
	status, data := flowsPost(h, tool, state, inputResponses)
	if !json.Valid([]byte(flowsCallBody(tool, state, inputResponses))) {
		// Not JSON at all: the streamable transport answers with HTTP 400
		// and a plain-text reason, which the transport spec allows.
		if status != http.StatusBadRequest {
			t.Fatalf("a body that is not JSON: HTTP %d: %q", status, data)
		}
		return false, "", nil
	}
	var r flowsReply
	if err := json.Unmarshal([]byte(data), &r); err != nil || (r.Result == nil) == (r.Error == nil) {
		t.Fatalf("HTTP %d: neither a result nor an error: %q", status, data)
	}
	if r.Error != nil || r.Result.IsError || r.Result.ResultType == "input_required" || (inputResponses != "" && !json.Valid([]byte(inputResponses))) {
		// Done, or params spliced into the request beyond inputResponses
		// (such as a second inputResponses), of which nothing more is
		// known than that the reply is well formed.
		return false, "", nil
	}
	if err := json.Unmarshal([]byte(inputResponses), &responses); err != nil {
		t.Fatalf("completed on inputResponses the SDK cannot read (%v): %s", err, data)
	}
	if len(r.Result.Content) > 0 {
		text = r.Result.Content[0].Text
	}
	return true, text, responses
}

// flowsSeeds adds every seed with each of the target's states.
func flowsSeeds(f *testing.F, states int, seeds ...string) {
	for _, seed := range seeds {
		for mode := range states {
			f.Add(uint8(mode), seed)
		}
	}
}

// FuzzStrictCall posts retries of the strict tool (one step: the
// Everything form, asked under the key "everything") with any
// inputResponses at all, through the HTTP handler and the SDK's own
// parsing, carrying the real state of the first round, no state, the poll
// tool's state or a tampered one. Whatever arrives, the reply is a JSON-RPC
// error or a result (HTTP 400 for a body that is not JSON), never a panic; and a completed result that is not a
// tool error follows either a decline or cancel under "everything", or an
// accepted content there that the independent validator (formcheck)
// accepts: never a completed call with invalid data.
func FuzzStrictCall(f *testing.F) {
	h := flowsHandler()
	strictState, pollState := flowsFirstState(f, h, "strict"), flowsFirstState(f, h, "poll")
	tampered := []byte(strictState)
	if i := len(tampered) / 2; tampered[i] == 'A' {
		tampered[i] = 'B'
	} else {
		tampered[i] = 'A'
	}
	states := []string{strictState, "", pollState, string(tampered)}
	checker, err := formcheck.New(flowsEverythingSchema)
	if err != nil {
		f.Fatal(err)
	}

	flowsSeeds(f, len(states),
		`{"everything":{"action":"accept","content":{"count":5,"favorite":"red"}}}`,
		`{"everything":{"action":"accept","content":{"count":200,"favorite":"blue","picks":["red","green"],"day":"2024-02-29","at":"2026-01-01T00:00:00.5Z","site":"mailto:a@b.c","mail":"a@b.co","note":"hi","agree":true}}}`,
		`{"everything":{"action":"accept","content":{"count":5.5,"favorite":"red"}}}`,
		`{"everything":{"action":"accept","content":{"favorite":"red"}}}`,
		`{"everything":{"action":"decline"}}`,
		`{"everything":{"action":"cancel","content":{"count":1}}}`,
		`{"everything":{"action":"maybe"}}`,
		`{"everything.2":{"action":"accept","content":{"count":5,"favorite":"red"}}}`,
		`{"everything":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}`,
		`{"everything":{"roots":[]}}`,
		`{"everything":12345}`, `{"everything":null}`, `[1]`, `null`, `{}`, `{"everything":{"action":"accept","content":[]}}`)
	f.Fuzz(func(t *testing.T, mode uint8, inputResponses string) {
		state := states[int(mode)%len(states)]
		completed, text, responses := flowsCompleted(t, h, "strict", state, inputResponses)
		if !completed {
			return
		}
		// The question is "everything" with the first round's state only:
		// without a state nothing was asked, and another tool's state or a
		// tampered one never opens.
		answer, _ := responses["everything"].(*mcp.ElicitResult)
		if state != strictState || answer == nil {
			t.Fatalf("completed (%q) without an answer to this state's question (state %d)", text, int(mode)%len(states))
		}
		switch answer.Action {
		case "decline", "cancel":
			return
		case "accept":
			if err := checker.Check(answer.Content); err != nil {
				t.Fatalf("completed (%q) with content the validator rejects: %v", text, err)
			}
		default:
			t.Fatalf("completed (%q) on action %q", text, answer.Action)
		}
	})
}

// TestStrictCallHarness checks the fuzz target's harness on known calls:
// a valid answer completes with the first round's state, and is ignored
// without one (nothing was asked); a tampered state or another tool's is a
// JSON-RPC error.
func TestStrictCallHarness(t *testing.T) {
	h := flowsHandler()
	read := func(status int, data string) flowsReply {
		t.Helper()
		var r flowsReply
		if err := json.Unmarshal([]byte(data), &r); err != nil {
			t.Fatalf("HTTP %d: %q", status, data)
		}
		return r
	}
	first := read(flowsPost(h, "strict", "", ""))
	poll := read(flowsPost(h, "poll", "", ""))
	if first.Result == nil || first.Result.ResultType != "input_required" || poll.Result == nil {
		t.Fatalf("first rounds: %+v %+v", first, poll)
	}
	valid := `{"everything":{"action":"accept","content":{"count":5,"favorite":"red"}}}`
	r := read(flowsPost(h, "strict", first.Result.RequestState, valid))
	if r.Result == nil || r.Result.IsError || r.Result.ResultType == "input_required" || len(r.Result.Content) == 0 ||
		!strings.HasPrefix(r.Result.Content[0].Text, "completed ") {
		t.Errorf("a valid answer did not complete: %+v", r)
	}
	if r := read(flowsPost(h, "strict", "", valid)); r.Result == nil || r.Result.ResultType != "input_required" {
		t.Errorf("an answer nobody asked for was taken: %+v", r)
	}
	for name, state := range map[string]string{"poll's state": poll.Result.RequestState, "tampered": first.Result.RequestState + "A"} {
		if r := read(flowsPost(h, "strict", state, valid)); r.Error == nil || r.Error.Code != -32602 {
			t.Errorf("%s: want a -32602 error, got %+v", name, r)
		}
	}
}

// FuzzSignupCall is FuzzStrictCall for the signup, whose three steps are
// one round (together): a retry of the first round's state (never a first
// call without one, whose answers nobody asked for) completes only when every question's answer is valid, or
// ends at the first question (in step order) declined or cancelled.
func FuzzSignupCall(f *testing.F) {
	h := flowsHandler()
	states := []string{flowsFirstState(f, h, "signup"), ""}
	steps := []struct {
		key  string
		form json.RawMessage
	}{{"name", flowsNameSchema}, {"rating", flowsRatingSchema}, {"colors", flowsColorsSchema}}
	checkers := make([]*formcheck.Checker, len(steps))
	for i, s := range steps {
		c, err := formcheck.New(s.form)
		if err != nil {
			f.Fatal(err)
		}
		checkers[i] = c
	}
	flowsSeeds(f, len(states),
		`{"name":{"action":"accept","content":{"name":"Ada"}},"rating":{"action":"accept","content":{"stars":4}},"colors":{"action":"accept","content":{"favorite":"blue"}}}`,
		`{"name":{"action":"accept","content":{"name":"Ada"}},"rating":{"action":"accept","content":{"stars":9}},"colors":{"action":"accept","content":{}}}`,
		`{"name":{"action":"accept","content":{"name":""}},"rating":{"action":"decline"},"colors":{"action":"cancel"}}`,
		`{"name":{"action":"accept","content":{"name":"Ada"}},"colors":{"action":"accept","content":{"also":["red"]}}}`,
		`{"rating.2":{"action":"accept","content":{"stars":4}}}`)
	f.Fuzz(func(t *testing.T, mode uint8, inputResponses string) {
		state := states[int(mode)%len(states)]
		completed, text, responses := flowsCompleted(t, h, "signup", state, inputResponses)
		if !completed {
			return
		}
		if state == "" {
			t.Fatalf("completed (%q) without a state: nothing was asked", text)
		}
		// The first question declined or cancelled, in step order, ends
		// the flow whatever the others say.
		for _, s := range steps {
			if answer, _ := responses[s.key].(*mcp.ElicitResult); answer != nil && (answer.Action == "decline" || answer.Action == "cancel") {
				if want := map[string]string{"decline": "no signup: declined at ", "cancel": "no signup: cancelled at "}[answer.Action] + s.key; text != want {
					t.Fatalf("completed with %q, want %q", text, want)
				}
				return
			}
		}
		// Otherwise every answer is an accepted, valid content.
		for i, s := range steps {
			answer, _ := responses[s.key].(*mcp.ElicitResult)
			if answer == nil || answer.Action != "accept" {
				t.Fatalf("completed (%q) without an accepted answer to %s", text, s.key)
			}
			if err := checkers[i].Check(answer.Content); err != nil {
				t.Fatalf("completed (%q) with %s content the validator rejects: %v", text, s.key, err)
			}
		}
	})
}
