package elicittest_test

import (
	"slices"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/elicittest"
	"github.com/elicitgen/elicitgen/runtime/elicittest/asktest"
)

// TestOverHTTP: the same scripts hold over streamable HTTP on 127.0.0.1,
// through runtime/serve's handler, on both eras: a typed answer, a
// decline, and a raw answer the decoder refuses, which is asked again
// under a new key.
func TestOverHTTP(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			c := elicittest.Start(t, asktest.Server, &elicittest.Options{Era: era, Transport: "http"})
			c.Call("summarize", args, elicittest.Accept(step, contextAnswer{Context: "the roadmap"}).Message(message)).
				WantText(t, "tool done")
			c.Call("summarize", args, elicittest.Decline(step)).WantText(t, "decline")
			out := c.Call("summarize", args,
				elicittest.Accept(step, map[string]any{"context": "no"}),
				elicittest.Accept(step, contextAnswer{Context: "the roadmap"}).Reason("at least 3 characters"))
			out.WantText(t, "tool done")
			if len(out.Questions) != 2 || out.Questions[1].Key != "user_context.2" {
				t.Errorf("questions: %v", out.Questions)
			}
		})
	}
}

// TestTaskOverHTTP: a task's tools/call, tasks/get and tasks/update go
// over streamable HTTP too, with the question answered mid-run.
func TestTaskOverHTTP(t *testing.T) {
	c := elicittest.Start(t, labelServer, &elicittest.Options{Tasks: true, Transport: "http"})
	out := c.Call("label", nil, elicittest.Accept(name, nameForm{Name: "jam"}).Message("Name the label."))
	out.WantText(t, "label: jam")
	if out.TaskID == "" || out.TaskStatus != "completed" || !slices.Contains(out.Progress, "printing the name") {
		t.Errorf("task %q ended %q, progress %q", out.TaskID, out.TaskStatus, out.Progress)
	}
}
