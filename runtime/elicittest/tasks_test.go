package elicittest_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
	"github.com/elicitgen/elicitgen/runtime/elicittest"
)

// A task tool, written by hand as generated code would write it: "label"
// must run as a task (//elicit:task required), and asks one step while it
// runs, name ({"name": a string}), between two progress messages.

var name = elicittest.Key("name")

type nameForm struct {
	Name string `elicit:"name,required"`
}

func (f *nameForm) DecodeElicit(c map[string]any) error {
	s, ok := c["name"].(string)
	if !ok {
		return errors.New("invalid content: name: must be a string")
	}
	f.Name = s
	return nil
}

type labelAnswers struct{ Name *nameForm }

func labelServer(opts *elicitrt.ToolOptions) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "label", Version: "v0"}, nil)
	m := elicitimpl.NewMachine("label", []elicitimpl.Step{{
		Key: "name", Message: "Name the label.", Mode: elicitimpl.ModeForm, During: true, Missing: "name is required",
		Params: func(msg string) *mcp.ElicitParams {
			return &mcp.ElicitParams{Mode: "form", Message: msg,
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}
		},
		Check: elicitimpl.Check[nameForm],
	}}, elicitimpl.Typed[noArgs, labelAnswers, int]{
		Answers: func(a elicitimpl.Answers) labelAnswers { return labelAnswers{Name: elicitimpl.Decoded[nameForm](a[0])} },
		Run:     runLabel,
		Tasks:   elicitimpl.TaskRequired,
	}.Flow(), opts)
	elicitimpl.AddTool[noArgs](server, &mcp.Tool{Name: "label", InputSchema: map[string]any{"type": "object"}}, m)
	return server
}

func runLabel(ctx context.Context, _ *mcp.CallToolRequest, t elicitrt.Task, _ noArgs, _ labelAnswers) (*mcp.CallToolResult, error) {
	if err := t.Progress(ctx, "printing the frame"); err != nil {
		return nil, err
	}
	r, err := t.Ask(ctx, 0)
	if err != nil {
		return nil, err
	}
	if r.Outcome != elicitrt.Accepted {
		return elicitrt.Text("no label: " + string(r.Outcome)), nil
	}
	if err := t.Progress(ctx, "printing the name"); err != nil {
		return nil, err
	}
	return elicitrt.Text("label: " + elicitimpl.Decoded[nameForm](r.Content(0)).Name), nil
}

// TestTask: a client that declares the Tasks extension gets the task; the
// kit answers its question through tasks/update, a re-ask included, and
// keeps its progress.
func TestTask(t *testing.T) {
	c := elicittest.Start(t, labelServer, &elicittest.Options{Tasks: true})
	out := c.Call("label", nil,
		elicittest.Accept(name, map[string]any{"name": 7}).Message("Name the label."),
		elicittest.Accept(name, nameForm{Name: "jam"}).Reason("must be a string"))
	out.WantText(t, "label: jam")
	if out.TaskID == "" || out.TaskStatus != "completed" {
		t.Errorf("task %q ended %q", out.TaskID, out.TaskStatus)
	}
	// Each message is kept, "printing the frame" too, though the question
	// replaces it at once: the kit records the task's own updates.
	want := []string{"printing the frame", "Waiting for your answer: Name the label.", "Your answer is in: the task resumes shortly.",
		"Waiting for your answer: Name the label.\n\nPlease correct: name: must be a string.", "Your answer is in: the task resumes shortly.",
		"printing the name"}
	if !slices.Equal(out.Progress, want) {
		t.Errorf("progress %q, want %q", out.Progress, want)
	}
	c.Call("label", nil, elicittest.Decline(name)).WantText(t, "no label: decline")
}

// TestTaskLeftWaiting: a question the script ignores, or has no step for,
// leaves the task waiting: the kit cancels it and says so; an unexpected
// question fails naming it.
func TestTaskLeftWaiting(t *testing.T) {
	c := elicittest.Start(t, labelServer, &elicittest.Options{Tasks: true})
	out := c.Call("label", nil, elicittest.Ignore(name))
	if out.TaskStatus != "input_required" || out.Result != nil || out.String() != "input_required (1 question)" {
		t.Errorf("ignored: %s, task %q", out, out.TaskStatus)
	}
	r := &recorder{TB: t}
	elicittest.Start(r, labelServer, &elicittest.Options{Tasks: true}).Call("label", nil)
	r.want(t, "unexpected question", `name "Name the label."`)
}

// TestTaskRequiresTheExtension: without the extension, and on 2025-11-25,
// a tool that must run as a task is -32021.
func TestTaskRequiresTheExtension(t *testing.T) {
	elicittest.Start(t, labelServer, nil).Call("label", nil).WantCode(t, -32021)
	elicittest.Start(t, labelServer, &elicittest.Options{Era: elicittest.Legacy, Tasks: true}).Call("label", nil).WantCode(t, -32021)
}
