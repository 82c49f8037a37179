package flows

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// signupAnswers answers the signup's questions by their message, as a
// client showing a round's questions side by side would.
func signupAnswers(name, rating, colors *mcp.ElicitResult) func(*mcp.ElicitParams) *mcp.ElicitResult {
	return func(p *mcp.ElicitParams) *mcp.ElicitResult {
		switch {
		case strings.HasPrefix(p.Message, "What is your name?"):
			return name
		case strings.HasPrefix(p.Message, "How many stars?"):
			return rating
		case strings.HasPrefix(p.Message, "Which colours?"):
			return colors
		}
		return &mcp.ElicitResult{Action: "cancel"}
	}
}

var (
	signupName   = hosttest.Accept(map[string]any{"name": "Ada"})
	signupRating = hosttest.Accept(map[string]any{"stars": 4.0})
	signupColors = hosttest.Accept(map[string]any{"favorite": "blue"})
)

// TestTogetherOneRound runs the signup through the SDK's own client, which
// answers every question of a round and retries: on 2026-07-28 the three
// together steps are one round, on 2025-11-25 three questions in turn; the
// result is the same.
func TestTogetherOneRound(t *testing.T) {
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				u := &hosttest.User{Answer: signupAnswers(signupName, signupRating, signupColors)}
				cs := hosttest.Connect(t, newServer, transport, era, hosttest.Options{User: u})
				res, err := callTool(cs, "signup", nil)
				if err != nil || hosttest.Text(res) != "signup: Ada, 4 stars, blue" {
					t.Fatalf("got %+v %v", res, err)
				}
				if len(u.Asked) != 3 {
					t.Errorf("asked %d questions, want 3", len(u.Asked))
				}
				u = &hosttest.User{Answer: signupAnswers(signupName, &mcp.ElicitResult{Action: "decline"}, signupColors)}
				cs = hosttest.Connect(t, newServer, transport, era, hosttest.Options{User: u})
				if res, err := callTool(cs, "signup", nil); err != nil || hosttest.Text(res) != "no signup: declined at rating" {
					t.Fatalf("decline: got %+v %v", res, err)
				}
			})
		}
	}
}

// TestTogetherRounds drives the signup by hand on 2026-07-28: one round
// asks all three; a retry keeps what was valid and asks again, in one
// round, only what was invalid or missing, each under its next key.
func TestTogetherRounds(t *testing.T) {
	for _, transport := range hosttest.Transports {
		t.Run(transport, func(t *testing.T) {
			cs := hosttest.Connect(t, newServer, transport, "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
			first, err := callTool(cs, "signup", nil)
			if err != nil || !first.NeedsInput() {
				t.Fatalf("first: %+v %v", first, err)
			}
			if keys := slices.Sorted(maps.Keys(first.InputRequests)); !slices.Equal(keys, []string{"colors", "name", "rating"}) {
				t.Fatalf("first round asks %v, want colors, name and rating", keys)
			}

			// All three at once: complete after one retry.
			res, err := callTool(cs, "signup", &mcp.CallToolParams{RequestState: first.RequestState, InputResponses: mcp.InputResponseMap{
				"name": signupName, "rating": signupRating, "colors": signupColors}})
			if err != nil || hosttest.Text(res) != "signup: Ada, 4 stars, blue" {
				t.Fatalf("all answered: %+v %v", res, err)
			}

			// The name valid, the rating invalid, the colours missing.
			second, err := callTool(cs, "signup", &mcp.CallToolParams{RequestState: first.RequestState, InputResponses: mcp.InputResponseMap{
				"name": signupName, "rating": hosttest.Accept(map[string]any{"stars": 9.0})}})
			if err != nil || !second.NeedsInput() {
				t.Fatalf("second: %+v %v", second, err)
			}
			if keys := slices.Sorted(maps.Keys(second.InputRequests)); !slices.Equal(keys, []string{"colors.2", "rating.2"}) {
				t.Fatalf("second round asks %v, want colors.2 and rating.2", keys)
			}
			if msg := second.InputRequests["rating.2"].(*mcp.ElicitParams).Message; !strings.Contains(msg, "Please correct: stars:") {
				t.Errorf("rating asked again without the reason: %q", msg)
			}
			if msg := second.InputRequests["colors.2"].(*mcp.ElicitParams).Message; msg != "Which colours?" {
				t.Errorf("colours asked again with %q, want the plain message (it was missing, not invalid)", msg)
			}
			// An answer under the old key does not count.
			stale, err := callTool(cs, "signup", &mcp.CallToolParams{RequestState: second.RequestState, InputResponses: mcp.InputResponseMap{
				"rating": signupRating, "colors.2": signupColors}})
			if err != nil || !stale.NeedsInput() {
				t.Fatalf("stale key: %+v %v", stale, err)
			}
			if keys := slices.Sorted(maps.Keys(stale.InputRequests)); !slices.Equal(keys, []string{"rating.3"}) {
				t.Fatalf("after a stale key, asks %v, want rating.3", keys)
			}
			res, err = callTool(cs, "signup", &mcp.CallToolParams{RequestState: stale.RequestState, InputResponses: mcp.InputResponseMap{
				"rating.3": signupRating}})
			if err != nil || hosttest.Text(res) != "signup: Ada, 4 stars, blue" {
				t.Fatalf("third: %+v %v", res, err)
			}

			// A decline of any question of the round ends the flow there.
			res, err = callTool(cs, "signup", &mcp.CallToolParams{RequestState: first.RequestState, InputResponses: mcp.InputResponseMap{
				"name": signupName, "colors": &mcp.ElicitResult{Action: "cancel"}}})
			if err != nil || hosttest.Text(res) != "no signup: cancelled at colors" {
				t.Fatalf("cancel: %+v %v", res, err)
			}

			// When the handler skips the name, the round is the other two.
			anon, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "signup", Arguments: map[string]any{"topic": "anonymous"}})
			if err != nil || !anon.NeedsInput() {
				t.Fatalf("anonymous: %+v %v", anon, err)
			}
			if keys := slices.Sorted(maps.Keys(anon.InputRequests)); !slices.Equal(keys, []string{"colors", "rating"}) {
				t.Fatalf("anonymous round asks %v, want colors and rating", keys)
			}
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "signup", Arguments: map[string]any{"topic": "anonymous"},
				RequestState: anon.RequestState, InputResponses: mcp.InputResponseMap{"rating": signupRating, "colors": signupColors}})
			if err != nil || hosttest.Text(res) != "signup: anonymous, 4 stars, blue" {
				t.Fatalf("anonymous: %+v %v", res, err)
			}

			// Answers to questions the server did not ask are ignored: a
			// first call that carries them is asked the first round.
			res, err = callTool(cs, "signup", &mcp.CallToolParams{InputResponses: mcp.InputResponseMap{
				"name": signupName, "rating": signupRating, "colors": signupColors}})
			if err != nil || !res.NeedsInput() || len(res.InputRequests) != 3 {
				t.Fatalf("answered up front: want the first round asked, got %+v %v", res, err)
			}
		})
	}
}

// TestTogetherFallback calls the signup from a client that cannot show
// forms: the name's fallback (error) decides before the colours' defaults.
func TestTogetherFallback(t *testing.T) {
	cs := hosttest.Connect(t, newServer, "memory", "modern", hosttest.Options{})
	_, err := callTool(cs, "signup", nil)
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != mcp.CodeMissingRequiredClientCapabilities ||
		string(werr.Data) != `{"requiredCapabilities":{"elicitation":{"form":{}}}}` {
		t.Fatalf("want -32021 naming form mode, got %v", err)
	}
}
