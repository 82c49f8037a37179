package elicittest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest"
	"github.com/elicitgen/elicitgen/runtime/elicittest/asktest"
)

// The server of these tests is asktest's: a tool "summarize" (argument
// project) with one form step, user_context ({"context": a string of at
// least 3 characters, required}); it returns "tool done" once answered,
// and the action ("decline", "cancel") when not.

var step = elicittest.Key("user_context")

const message = "What context should the prompt use?"

// contextAnswer is the step's form as a typed answer: its property is the
// elicit tag's name.
type contextAnswer struct {
	Context string `elicit:"context,required"`
}

var args = map[string]any{"project": "elicitgen"}

func start(t testing.TB, era elicittest.Era) *elicittest.Client {
	return elicittest.Start(t, asktest.Server, &elicittest.Options{Era: era})
}

// recorder is a testing.TB that keeps the kit's failures instead of
// failing the test, for the tests of wrong scripts.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// want fails t unless the kit reported exactly one failure, containing
// every part.
func (r *recorder) want(t *testing.T, parts ...string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errors) != 1 {
		t.Fatalf("want one failure, got %d: %q", len(r.errors), r.errors)
	}
	for _, p := range parts {
		if !strings.Contains(r.errors[0], p) {
			t.Errorf("failure %q does not say %q", r.errors[0], p)
		}
	}
}

func TestAcceptTyped(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			c := start(t, era)
			out := c.Call("summarize", args, elicittest.Accept(step, contextAnswer{Context: "the roadmap"}).
				Message(message).Fields("context").Title("context", ""))
			out.WantText(t, "tool done")
			if len(out.Questions) != 1 || out.Questions[0].Key != "user_context" {
				t.Errorf("questions: %v", out.Questions)
			}
		})
	}
}

func TestDeclineAndCancel(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			c := start(t, era)
			c.Call("summarize", args, elicittest.Decline(step)).WantText(t, "decline")
			c.Call("summarize", args, elicittest.Cancel(step)).WantText(t, "cancel")
		})
	}
}

// TestInvalidAnswerIsAskedAgain: a raw answer the form's decoder refuses
// is asked again under a new key, with the reason.
func TestInvalidAnswerIsAskedAgain(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			c := start(t, era)
			out := c.Call("summarize", args,
				elicittest.Accept(step, map[string]any{"context": "no"}),
				elicittest.Accept(step, contextAnswer{Context: "the roadmap"}).Message(message).Reason("at least 3 characters"))
			out.WantText(t, "tool done")
			if len(out.Questions) != 2 || out.Questions[1].Key != "user_context.2" {
				t.Errorf("questions: %v", out.Questions)
			}
		})
	}
}

// TestWrongScript: a step scripted for another question, and a check
// that does not hold, fail naming the step, what was asked and what the
// script expected.
func TestWrongScript(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			r := &recorder{TB: t}
			start(r, era).Call("summarize", args, elicittest.Accept(elicittest.Key("budget"), contextAnswer{Context: "abc"}))
			r.want(t, `step 1 of the script (accept "budget")`, `asked user_context "What context should the prompt use?" with properties context`, `the script expected "budget"`)

			r = &recorder{TB: t}
			out := start(r, era).Call("summarize", args, elicittest.Accept(step, contextAnswer{Context: "abc"}).Message("Which context?"))
			r.want(t, `step 1 of the script (accept "user_context")`, `the script expected message "Which context?"`)
			out.WantText(t, "tool done") // the step matched: answered as scripted
		})
	}
}

// otherForm is a generated form type of other properties (it has
// ElicitSchema): the kit refuses to send it for this step.
type otherForm struct {
	Budget int `elicit:"budget"`
}

func (otherForm) ElicitSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"budget":{"type":"integer"}}}`)
}

func TestUnexpectedQuestion(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			r := &recorder{TB: t}
			start(r, era).Call("summarize", args)
			r.want(t, `unexpected question: asked user_context "What context should the prompt use?"`, "the script has no step left (it had 0)")
		})
	}
}

func TestMissingQuestion(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			r := &recorder{TB: t}
			start(r, era).Call("summarize", args,
				elicittest.Accept(step, contextAnswer{Context: "the roadmap"}),
				elicittest.Accept(elicittest.Key("confirm"), map[string]any{"confirm": true}))
			r.want(t, `step 2 of the script (accept "confirm") was never asked`, `the call ended with result "tool done"`)
		})
	}
}

// TestErasDiffer: a question no one answers is asked again on 2026-07-28
// (the retry leaves it out) and ends the call on 2025-11-25 (the server
// gives up waiting); a replay exists on 2026-07-28 only.
func TestErasDiffer(t *testing.T) {
	opts := &elicittest.Options{Tool: &elicitrt.ToolOptions{LegacyAnswerWait: 200 * time.Millisecond}}
	opts.Era = elicittest.Modern
	modern := elicittest.Start(t, asktest.Server, opts)
	out := modern.Call("summarize", args, elicittest.Ignore(step),
		elicittest.Accept(step, contextAnswer{Context: "the roadmap"}).Message(message))
	out.WantText(t, "tool done")
	if len(out.Questions) != 2 || out.Questions[1].Key != "user_context.2" || out.Questions[1].Reason != "" {
		t.Errorf("modern questions: %v", out.Questions)
	}
	modern.Replay().WantText(t, "tool done") // no once step: a replay runs again

	opts.Era = elicittest.Legacy
	r := &recorder{TB: t}
	legacy := elicittest.Start(r, asktest.Server, opts)
	legacy.Call("summarize", args, elicittest.Ignore(step)).WantToolError(t, "user_context: no answer came")
	if out := legacy.Replay(); !errors.Is(out.Err, elicittest.ErrNoRetry) {
		t.Errorf("legacy replay: %v", out)
	}
	r.want(t, "Replay on 2025-11-25")
}

// TestWrongFormType: a typed answer of another form fails the step on
// both eras, before anything is sent.
func TestWrongFormType(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			r := &recorder{TB: t}
			start(r, era).Call("summarize", args, elicittest.Accept(step, otherForm{Budget: 3}))
			r.want(t, `step 1 of the script (accept "user_context")`, "answers with a elicittest_test.otherForm, a form with properties budget")
		})
	}
}

// TestNoElicitation: a client that declares no elicitation gets the
// step's missing capability as -32021, and no question.
func TestNoElicitation(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			c := elicittest.Start(t, asktest.Server, &elicittest.Options{Era: era, Capabilities: elicittest.NoElicitation()})
			out := c.Call("summarize", args)
			out.WantCode(t, -32021)
			if len(out.Fallbacks()) != 1 {
				t.Errorf("fallbacks: %v", out.Fallbacks())
			}
		})
	}
}

// TestToolOptions: the server gets the kit's clock (Epoch, or the test's),
// keys, replay guard, grant store, principal and waits, and keeps what the
// test set.
func TestToolOptions(t *testing.T) {
	var got *elicitrt.ToolOptions
	capture := func(opts *elicitrt.ToolOptions) *mcp.Server {
		got = opts
		return asktest.Server(opts)
	}
	elicittest.Start(t, capture, nil)
	if got.Now() != elicittest.Epoch || got.Keys == nil || got.Replay == nil || got.LegacyAnswerWait != elicittest.DefaultLegacyAnswerWait ||
		got.LegacyURLWait != elicittest.DefaultLegacyURLWait || got.Grants == nil || got.Tasks == nil || got.Principal(nil) != elicittest.DefaultPrincipal {
		t.Errorf("defaults: %+v", got)
	}
	elicittest.Start(t, capture, &elicittest.Options{Principal: "ada"})
	if got.Principal(nil) != "ada" {
		t.Errorf("Options.Principal: the server's principal is %q", got.Principal(nil))
	}
	day := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	elicittest.Start(t, capture, &elicittest.Options{Now: func() time.Time { return day }, Tool: &elicitrt.ToolOptions{MaxAttempts: 7}})
	if got.Now() != day || got.MaxAttempts != 7 {
		t.Errorf("the test's clock and options: %+v", got)
	}
}

// TestPromptAndResource: a prompt and a resource template that ask are
// scripted as a tool is, on both eras.
func TestPromptAndResource(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			c := start(t, era)
			project := map[string]string{"project": "elicitgen"}
			c.GetPrompt("summarize", project, elicittest.Accept(step, contextAnswer{Context: "the roadmap"}).Message(message)).
				WantText(t, "Summarize elicitgen for the roadmap.")
			c.GetPrompt("summarize", project, elicittest.Decline(step)).WantText(t, "Summarize elicitgen.")
			c.GetPrompt("summarize", project, elicittest.Cancel(step)).WantCode(t, -32602)
			notes := elicittest.Key("note_context")
			c.ReadResource("notes://7", elicittest.Accept(notes, contextAnswer{Context: "the launch"}).Message("Which notes?")).
				WantText(t, "notes on the launch")
			c.ReadResource("notes://7", elicittest.Decline(notes)).WantText(t, "declined")
		})
	}
}

// TestSignInNotURLStep: a sign-in scripted for a form step fails naming
// the step, and the call ends there.
func TestSignInNotURLStep(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			r := &recorder{TB: t}
			start(r, era).Call("summarize", args, elicittest.SignIn(step))
			r.want(t, `step 1 of the script (sign in "user_context")`, "not a URL step")
		})
	}
}
