package elicittest

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/tasks"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// A task tool (//elicit:task) called by a client that declares the Tasks
// extension: the questions asked before the task are MRTR rounds as for
// any tool; then the call answers with a task, which the kit follows with
// tasks/get, answering the questions it asks (its "during" steps) with
// tasks/update by the same script, and keeping the status messages it
// shows, until the task ends.

// DefaultTaskWait is Options.TaskWait when it is zero.
const DefaultTaskWait = time.Minute

// taskPoll bounds each wait for a task's next version: the kit waits on
// the server's task store (TaskStore.Wait), which returns as soon as the
// task changes; the bound only makes a store that misses a change cost a
// little time instead of the whole Options.TaskWait.
const taskPoll = 200 * time.Millisecond

// ErrTaskCancelled is the Outcome.Err of a call whose task was cancelled.
var ErrTaskCancelled = errors.New("elicittest: the task was cancelled")

// taskSender is Call's sender over the wire: a tools/call, and the task it
// may start, followed to its end.
func (c *Client) taskSender(tool string, args any) sender {
	if args == nil {
		args = map[string]any{}
	}
	return func(out *Outcome, responses mcp.InputResponseMap, state string) *round {
		params := map[string]any{"name": tool, "arguments": args}
		if state != "" {
			params["requestState"], params["inputResponses"] = state, responses
		}
		var raw json.RawMessage
		if out.Err = c.wire.call(c.ctx(), "tools/call", params, &raw); out.Err != nil {
			return nil
		}
		if out.TaskID, out.Err = createdTask(raw); out.TaskID != "" {
			c.follow(out)
			return nil
		}
		if out.Err != nil {
			return nil
		}
		return decodeCall(out, raw)
	}
}

// createdTask returns the id of the task a tools/call result created; ""
// when it is a result of another type.
func createdTask(raw json.RawMessage) (string, error) {
	var head struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
	}
	if err := json.Unmarshal(raw, &head); err != nil || head.ResultType != "task" {
		return "", err
	}
	return head.TaskID, nil
}

// decodeCall keeps a tools/call result in out, and returns its round when
// it asks.
func decodeCall(out *Outcome, raw json.RawMessage) *round {
	res := &mcp.CallToolResult{}
	if out.Err = json.Unmarshal(raw, res); out.Err != nil {
		return nil
	}
	out.Result = res
	if !res.NeedsInput() {
		return nil
	}
	return &round{res.InputRequests, res.RequestState}
}

// taskRun is what the kit knows of a task it follows.
type taskRun struct {
	out      *Outcome
	p        *person
	answered map[string]bool // keys answered or ignored: true when answered
}

// follow follows the task of out until it ends, answering its questions
// by the running script; it cancels a task that waits for answers the
// script does not give, or outlasts Options.TaskWait. Between two looks
// it waits on the server's task store for the task's next version; its
// progress is what the store recorded (taskLog).
func (c *Client) follow(out *Outcome) {
	r := &taskRun{out: out, p: c.playing(), answered: map[string]bool{}}
	defer func() { out.Progress = c.tasks.progress(out.TaskID) }()
	deadline := time.Now().Add(c.taskWait)
	for time.Now().Before(deadline) {
		version := c.taskVersion(out.TaskID)
		var task tasks.TaskResult
		if out.Err = c.taskCall("tasks/get", out.TaskID, nil, &task); out.Err != nil {
			return
		}
		if ended(out, &task) || !c.answerTask(r, &task) {
			return
		}
		c.waitTask(out.TaskID, version, deadline)
	}
	r.p.mu.Lock()
	r.p.fail("the task %s did not end within %v (Options.TaskWait); the kit cancelled it", out.TaskID, c.taskWait)
	r.p.mu.Unlock()
	c.cancelTask(out.TaskID)
}

// taskVersion is the version of task id in the server's store; 0 when
// the store does not answer.
func (c *Client) taskVersion(id string) uint64 {
	rec, err := c.tasks.Get(c.ctx(), id)
	if err != nil || rec == nil {
		return 0
	}
	return rec.Version
}

// waitTask waits until task id is past version, for at most taskPoll and
// never past deadline.
func (c *Client) waitTask(id string, version uint64, deadline time.Time) {
	if bound := time.Now().Add(taskPoll); bound.Before(deadline) {
		deadline = bound
	}
	ctx, cancel := context.WithDeadline(c.ctx(), deadline)
	defer cancel()
	if c.tasks.Wait(ctx, id, version) != nil {
		<-ctx.Done() // the store failed: wait out the bound rather than spin
	}
}

// taskCall sends a tasks/* request about task id, with the answers of a
// tasks/update.
func (c *Client) taskCall(method, id string, responses mcp.InputResponseMap, out any) error {
	params := map[string]any{"taskId": id}
	if responses != nil {
		params["inputResponses"] = responses
	}
	return c.wire.call(c.ctx(), method, params, out)
}

// ended keeps the end of task in out, and reports whether it ended.
func ended(out *Outcome, task *tasks.TaskResult) bool {
	out.TaskStatus = string(task.Status)
	switch task.Status {
	case backend.TaskCompleted:
		res := &mcp.CallToolResult{}
		if out.Err = json.Unmarshal(task.Result, res); out.Err == nil {
			out.Result = res
		}
	case backend.TaskFailed:
		werr := &jsonrpc.Error{}
		if out.Err = json.Unmarshal(task.Error, werr); out.Err == nil {
			out.Err = werr
		}
	case backend.TaskCancelled:
		out.Err = ErrTaskCancelled
	default:
		return false
	}
	return true
}

// answerTask answers the questions task asks that the script has not met
// yet; false when the kit stops following it: the script broke off, or
// the task waits only for answers the script left out (it is cancelled).
func (c *Client) answerTask(r *taskRun, task *tasks.TaskResult) bool {
	if task.Status != backend.TaskInputRequired {
		return true
	}
	inputs, err := r.newInputs(task.InputRequests)
	if err != nil {
		r.out.Err = err
		return false
	}
	if len(inputs) == 0 {
		if r.waitsForIgnored(task.InputRequests) {
			return c.giveUp(r, len(task.InputRequests))
		}
		return true // answered: the task has not taken the answers yet
	}
	responses, ok := c.round(r.p, inputs)
	for k := range inputs {
		r.answered[k] = responses[k] != nil
	}
	if !ok {
		return c.giveUp(r, len(inputs))
	}
	if len(responses) == 0 {
		return true
	}
	var ack json.RawMessage
	r.out.Err = c.taskCall("tasks/update", r.out.TaskID, responses, &ack)
	return r.out.Err == nil
}

// newInputs decodes the input requests the kit has not met yet.
func (r *taskRun) newInputs(raw map[string]json.RawMessage) (mcp.InputRequestMap, error) {
	fresh := map[string]json.RawMessage{}
	for k, v := range raw {
		if _, met := r.answered[k]; !met {
			fresh[k] = v
		}
	}
	if len(fresh) == 0 {
		return nil, nil
	}
	data, err := json.Marshal(fresh)
	if err != nil {
		return nil, err
	}
	var inputs mcp.InputRequestMap
	return inputs, json.Unmarshal(data, &inputs)
}

// waitsForIgnored reports whether every key in raw was left unanswered by
// the script: the task waits for what will not come.
func (r *taskRun) waitsForIgnored(raw map[string]json.RawMessage) bool {
	for k := range raw {
		if r.answered[k] {
			return false
		}
	}
	return true
}

// giveUp ends the kit's following of a task still waiting for n answers:
// the task is cancelled, and the outcome says what it waited for.
func (c *Client) giveUp(r *taskRun, n int) bool {
	r.out.pending = n
	c.cancelTask(r.out.TaskID)
	return false
}

// cancelTask cancels task id, so that its work ends with the test.
func (c *Client) cancelTask(id string) {
	var ack json.RawMessage
	c.taskCall("tasks/cancel", id, nil, &ack)
}
