package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/elicittest"
)

// The report tool with the test kit. A client that declares the Tasks
// extension gets a task: the format is asked first (an MRTR round), then
// the task asks for the salaries midway (tasks/get, answered with
// tasks/update) while its progress shows; a client that does not gets
// both questions before the work, and the result in the call.

var kitArgs = ReportArgs{Topic: "Q3", Seconds: 1}

// TestKitReportTask: the whole run of the task, as the model and the
// person see it, with an invalid answer asked again in the task.
func TestKitReportTask(t *testing.T) {
	c := elicittest.Start(t, newServer, &elicittest.Options{Tasks: true})
	out := c.Call("report", kitArgs,
		elicittest.Accept(ReportStepFormat, FormatChoice{Format: HTML}).Message(formatMessage),
		elicittest.Accept(ReportStepSalaries, map[string]any{"include": "yes"}).Message(salariesMessage).Fields("include"),
		elicittest.Accept(ReportStepSalaries, SalariesChoice{Include: true}).Reason("include: must be a boolean"))
	out.WantText(t, "Report on Q3 (html): 5 sections: Summary, Revenue by region, Salaries, Costs, Outlook; salaries included.")
	if out.TaskID == "" || out.TaskStatus != "completed" {
		t.Errorf("task %q ended %q, want a completed task", out.TaskID, out.TaskStatus)
	}
	// Every status message of the task, in order: the kit records them
	// from the task's own updates, the runtime's included.
	want := []string{
		`Writing "Summary" (0 of 4 sections done)`,
		`Writing "Revenue by region" (1 of 4 sections done)`,
		"Waiting for your answer: " + salariesMessage,
		"Your answer is in: the task resumes shortly.",
		"Waiting for your answer: " + salariesMessage + "\n\nPlease correct: include: must be a boolean.",
		"Your answer is in: the task resumes shortly.",
		`Writing "Salaries" (2 of 5 sections done)`,
		`Writing "Costs" (3 of 5 sections done)`,
		`Writing "Outlook" (4 of 5 sections done)`,
		"Done: 5 sections written",
	}
	if !slices.Equal(out.Progress, want) {
		t.Errorf("progress %q, want %q", out.Progress, want)
	}
}

// TestKitReportTaskDecisions: what the person decides in the task reaches
// the report: a decline leaves the salaries out, a dismissal stops the
// report, a declined format ends before any task, and a question left
// unanswered leaves the task waiting (the kit cancels it).
func TestKitReportTaskDecisions(t *testing.T) {
	c := elicittest.Start(t, newServer, &elicittest.Options{Tasks: true})
	format := elicittest.Accept(ReportStepFormat, FormatChoice{Format: Markdown})
	c.Call("report", kitArgs, format, elicittest.Decline(ReportStepSalaries)).
		WantText(t, "Report on Q3 (markdown): 4 sections: Summary, Revenue by region, Costs, Outlook; salaries left out.")
	c.Call("report", kitArgs, format, elicittest.Cancel(ReportStepSalaries)).
		WantText(t, "Report on Q3 stopped after 2 sections: the salaries question was dismissed.")
	out := c.Call("report", kitArgs, elicittest.Decline(ReportStepFormat))
	out.WantText(t, "No report on Q3: you declined the format question.")
	if out.TaskID != "" {
		t.Errorf("a declined format started task %s", out.TaskID)
	}
	out = c.Call("report", kitArgs, format, elicittest.Ignore(ReportStepSalaries))
	if out.TaskStatus != "input_required" || out.Result != nil || !strings.Contains(out.String(), "input_required") {
		t.Errorf("an unanswered question in the task: %s (task %q)", out, out.TaskStatus)
	}
}

// TestKitReportForeground: a client without the extension, on either era,
// is asked both questions before the work, and gets no task.
func TestKitReportForeground(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			c := elicittest.Start(t, newServer, &elicittest.Options{Era: era, Tasks: era == elicittest.Legacy})
			out := c.Call("report", kitArgs,
				elicittest.Accept(ReportStepFormat, FormatChoice{Format: Text}),
				elicittest.Accept(ReportStepSalaries, SalariesChoice{Include: false}).Message(salariesMessage))
			out.WantText(t, "Report on Q3 (text): 4 sections: Summary, Revenue by region, Costs, Outlook; salaries left out.")
			if out.TaskID != "" || len(out.Progress) != 0 {
				t.Errorf("foreground call: task %q, progress %q", out.TaskID, out.Progress)
			}
		})
	}
}

// TestKitReportTaskWrongScript: a script without the task's question fails
// naming the question the task asked, and the kit cancels the task.
func TestKitReportTaskWrongScript(t *testing.T) {
	r := &kitFailures{TB: t}
	c := elicittest.Start(r, newServer, &elicittest.Options{Tasks: true})
	out := c.Call("report", kitArgs, elicittest.Accept(ReportStepFormat, FormatChoice{Format: HTML}))
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "unexpected question") || !strings.Contains(r.errors[0], `salaries "`+salariesMessage) {
		t.Errorf("failures %q, want one unexpected question naming salaries", r.errors)
	}
	if out.TaskStatus != "input_required" || out.Result != nil {
		t.Errorf("outcome %s (task %q), want the task left waiting", out, out.TaskStatus)
	}
}

// TestKitReportTaskWait: a task that outlasts Options.TaskWait fails the
// test, naming the task, and is cancelled.
func TestKitReportTaskWait(t *testing.T) {
	r := &kitFailures{TB: t}
	store := &backend.MemoryTaskStore{Now: func() time.Time { return elicittest.Epoch }}
	c := elicittest.Start(r, newServer, &elicittest.Options{Tasks: true, TaskWait: 100 * time.Millisecond, Tool: &elicitrt.ToolOptions{Tasks: store}})
	out := c.Call("report", ReportArgs{Topic: "Q3", Seconds: 60}, elicittest.Accept(ReportStepFormat, FormatChoice{Format: HTML}))
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "the task "+out.TaskID+" did not end within 100ms") {
		t.Errorf("failures %q, want one naming task %s", r.errors, out.TaskID)
	}
	if out.TaskStatus != "working" || out.Result != nil {
		t.Errorf("outcome %s (task %q), want a working task", out, out.TaskStatus)
	}
	if rec, err := store.Get(t.Context(), out.TaskID); err != nil || rec == nil || rec.Status != backend.TaskCancelled {
		t.Errorf("the task in the store: %+v (%v), want it cancelled", rec, err)
	}
}

// TestKitReportReplay: the retry that answered the format, sent again,
// starts a task of its own (the server takes the same retry again, as a
// retry refused for a bound is taken later); Replay follows it, its steps
// answering the task's question.
func TestKitReportReplay(t *testing.T) {
	c := elicittest.Start(t, newServer, &elicittest.Options{Tasks: true})
	first := c.Call("report", kitArgs, elicittest.Accept(ReportStepFormat, FormatChoice{Format: HTML}), elicittest.Decline(ReportStepSalaries))
	again := c.Replay(elicittest.Accept(ReportStepSalaries, SalariesChoice{Include: true}).Message(salariesMessage))
	again.WantText(t, "Report on Q3 (html): 5 sections: Summary, Revenue by region, Salaries, Costs, Outlook; salaries included.")
	if again.TaskID == "" || again.TaskID == first.TaskID {
		t.Errorf("replayed task %q (first %q), want another task", again.TaskID, first.TaskID)
	}
}

// kitFailures is a testing.TB that keeps the kit's failures.
type kitFailures struct {
	testing.TB
	errors []string
}

func (f *kitFailures) Helper() {}

func (f *kitFailures) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
