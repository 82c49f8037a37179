package runtime

import (
	"context"
	"errors"
	"fmt"
)

// Task is what a task tool's Run gets: the running task (ID, Progress) and
// the questions it may ask (Ask, which the generated AskStep methods
// call). In the foreground (a client without the tasks extension) it has
// no ID, Progress does nothing and Ask returns the answers given before
// Run (docs/guide/tasks.md).
type Task interface {
	// ID is the task id, "" in the foreground.
	ID() string
	// InForeground reports whether Run runs inside the tools/call, for a
	// client without the tasks extension.
	InForeground() bool
	// Progress sets the task's statusMessage (at most 256 bytes kept),
	// which tasks/get shows. In the foreground it does nothing. It is
	// best effort: when the store cannot be reached the message is
	// dropped (and logged), and the work goes on; the error is ctx's,
	// once the task is cancelled or expired.
	Progress(ctx context.Context, message string) error
	// Ask asks the steps (their indexes in the tool's declaration)
	// together and waits for the answers: the task is input_required
	// until tasks/update answers them all. An invalid answer is asked
	// again with the reason; a step asked MaxAttempts times ends Ask with
	// a *GaveUpError. The Reply is Accepted with every step's content, or
	// names the first step declined or cancelled.
	Ask(ctx context.Context, steps ...int) (Reply, error)
}

// Outcome is how the user answered the questions of a Task.Ask.
type Outcome string

// The outcomes of a flow or of a Task.Ask.
const (
	Accepted  Outcome = "accept"
	Declined  Outcome = "decline"
	Cancelled Outcome = "cancel"
)

// Reply is the answer to a Task.Ask: Accepted with every step's content,
// or the outcome of the first step (in step order) that was declined or
// cancelled, in Step.
type Reply struct {
	Outcome Outcome
	// Step is the step that was declined or cancelled; -1 when Accepted.
	Step int
	// Contents are the accepted contents, by step: each its form's
	// declared properties, valid for its decoder.
	Contents map[int]map[string]any
}

// Content is the accepted content of step (its form's declared
// properties, valid for its decoder); nil unless Accepted.
func (r Reply) Content(step int) map[string]any { return r.Contents[step] }

// ErrNotAsked is Task.Ask's error, in the foreground, for a step that was
// not asked before Run (its Ask hook skipped it).
var ErrNotAsked = errors.New("elicitrt: the step was not asked before Run")

// GaveUpError is Task.Ask's error when a step got MaxAttempts invalid
// answers in a row. A Run that returns it completes the task with a tool
// error saying so.
type GaveUpError struct {
	// Step is the step's key; Tries the invalid answers it got; Reason
	// why the last was invalid.
	Step   string
	Tries  int
	Reason string
}

// Error says which step gave up after how many invalid answers, and why.
func (e *GaveUpError) Error() string {
	return fmt.Sprintf("%s: gave up after %d invalid answers: %s", e.Step, e.Tries, e.Reason)
}
