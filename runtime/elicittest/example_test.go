package elicittest_test

import (
	"testing"

	"github.com/elicitgen/elicitgen/runtime/elicittest"
	"github.com/elicitgen/elicitgen/runtime/elicittest/asktest"
)

// A test of a tool with one form step, user_context, on both eras: the
// first answer is too short and is asked again with the reason; the
// second, typed as the form, completes the call. (An example needs a
// *testing.T, which only go test gives, so this one is compiled, not run;
// TestInvalidAnswerIsAskedAgain runs the same script.)
func Example() {
	type contextForm struct {
		Context string `elicit:"context,required"`
	}
	_ = func(t *testing.T) {
		for _, era := range elicittest.Eras {
			t.Run(era.String(), func(t *testing.T) {
				c := elicittest.Start(t, asktest.Server, &elicittest.Options{Era: era})
				step := elicittest.Key("user_context") // generated tools have step constants
				c.Call("summarize", map[string]any{"project": "elicitgen"},
					elicittest.Accept(step, map[string]any{"context": "no"}),
					elicittest.Accept(step, contextForm{Context: "the roadmap"}).
						Reason("at least 3 characters"),
				).WantText(t, "tool done")
			})
		}
	}
}
