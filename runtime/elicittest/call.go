package elicittest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRounds bounds the rounds of one 2026-07-28 request the kit plays,
// above the server's own bound (ToolOptions.MaxRounds).
const maxRounds = 20

// ErrNoRetry is the error of a Replay with no retry to send again: on
// 2025-11-25, or before any request asked a question.
var ErrNoRetry = errors.New("elicittest: no retry to replay")

// round is what an input_required result asks: its questions and the
// state to send back with their answers.
type round struct {
	inputs mcp.InputRequestMap
	state  string
}

// sender sends one request of a conversation, with the answers and state
// of the round before (none the first time), and keeps its result in out;
// it returns the next round, or nil when the request ended.
type sender func(out *Outcome, responses mcp.InputResponseMap, state string) *round

// Call calls tool with args (a map, a struct of the tool's arguments, or
// nil) and plays steps as the person: one step for each question, in
// order. It fails t (without stopping it) when a question does not match
// its step, when a question has no step, and when a step is never asked;
// the outcome is what the model got. With Options.Tasks on 2026-07-28, a
// task tool's call that becomes a task is followed to its end: the steps
// asked before the task and those the task asks (through tasks/update)
// are one script, and the outcome also has the task's id, status and
// progress messages.
func (c *Client) Call(tool string, args any, steps ...Step) *Outcome {
	c.t.Helper()
	if c.wire != nil {
		return c.converse(steps, c.taskSender(tool, args))
	}
	return c.converse(steps, func(out *Outcome, responses mcp.InputResponseMap, state string) *round {
		res, err := c.session.CallTool(c.ctx(), &mcp.CallToolParams{Name: tool, Arguments: args, InputResponses: responses, RequestState: state})
		out.Result, out.Err = res, err
		if err != nil || !res.NeedsInput() {
			return nil
		}
		return &round{res.InputRequests, res.RequestState}
	})
}

// GetPrompt gets the prompt name with args, playing steps as Call does;
// the outcome's Prompt is what the model got.
func (c *Client) GetPrompt(name string, args map[string]string, steps ...Step) *Outcome {
	c.t.Helper()
	return c.converse(steps, func(out *Outcome, responses mcp.InputResponseMap, state string) *round {
		res, err := c.session.GetPrompt(c.ctx(), &mcp.GetPromptParams{Name: name, Arguments: args, InputResponses: responses, RequestState: state})
		out.Prompt, out.Err = res, err
		if err != nil || !res.NeedsInput() {
			return nil
		}
		return &round{res.InputRequests, res.RequestState}
	})
}

// ReadResource reads the resource at uri, playing steps as Call does; the
// outcome's Resource is what the model got.
func (c *Client) ReadResource(uri string, steps ...Step) *Outcome {
	c.t.Helper()
	return c.converse(steps, func(out *Outcome, responses mcp.InputResponseMap, state string) *round {
		res, err := c.session.ReadResource(c.ctx(), &mcp.ReadResourceParams{URI: uri, InputResponses: responses, RequestState: state})
		out.Resource, out.Err = res, err
		if err != nil || !res.NeedsInput() {
			return nil
		}
		return &round{res.InputRequests, res.RequestState}
	})
}

// converse plays steps through the requests send makes, and reports what
// did not go as scripted.
func (c *Client) converse(steps []Step, send sender) *Outcome {
	c.t.Helper()
	p := newPerson(steps)
	p.signIn = c.signInAt
	c.hooks.take()
	c.play(p)
	defer c.play(nil)
	out := c.rounds(p, send)
	questions, failures := p.finish(out.String())
	out.Questions, out.Events = questions, c.hooks.take()
	c.report(failures)
	return out
}

// rounds sends the request, then, while it returns input_required (on
// 2026-07-28), answers the round's questions by the script and retries,
// until the request ends or the script breaks off.
func (c *Client) rounds(p *person, send sender) *Outcome {
	var responses mcp.InputResponseMap
	state := ""
	for range maxRounds {
		out := &Outcome{}
		r := send(out, responses, state)
		if r == nil {
			return out
		}
		var ok bool
		if responses, ok = c.round(p, r.inputs); !ok {
			out.pending = len(r.inputs)
			return out
		}
		state = r.state
		c.remember(send, responses, state)
	}
	p.mu.Lock()
	p.fail("the request still asked after %d rounds", maxRounds)
	p.mu.Unlock()
	return &Outcome{}
}

// round answers the questions of one input_required result, in the order
// of their keys.
func (c *Client) round(p *person, inputs mcp.InputRequestMap) (mcp.InputResponseMap, bool) {
	keys := slices.Sorted(maps.Keys(inputs))
	responses := mcp.InputResponseMap{}
	for i, k := range keys {
		params, ok := inputs[k].(*mcp.ElicitParams)
		if !ok {
			p.mu.Lock()
			p.fail("input request %s is a %T, not an elicitation: the kit answers elicitations only", k, inputs[k])
			p.mu.Unlock()
			return nil, false
		}
		answer, _, ok := p.answer(newQuestion(k, params), len(keys)-1-i)
		if !ok {
			return nil, false
		}
		if answer != nil {
			responses[k] = answer
		}
	}
	return responses, true
}

// elicit is the client's elicitation handler: a 2025-11-25 question,
// answered by the running request's script.
func (c *Client) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p := c.playing()
	if p == nil {
		return nil, errors.New("elicittest: a question while no request runs")
	}
	q := newQuestion(p.legacyKey(c.hooks.nextAsked()), req.Params)
	res, content, ok := p.answer(q, 0)
	if !ok {
		return nil, errors.New("elicittest: the script did not expect this question")
	}
	markRaw(ctx, content, res)
	if res == nil { // ignored: the server gives up after LegacyAnswerWait
		select {
		case <-ctx.Done():
		case <-time.After(c.wait + time.Minute):
		}
		return nil, errors.New("elicittest: no answer")
	}
	return res, nil
}

// Replay sends the last retry of the last request again, as it was sent
// (2026-07-28 only): a step declared once refuses it. Without a retry to
// send it fails t and returns ErrNoRetry. A retry that starts a task
// (Options.Tasks) is followed as Call follows one, steps answering the
// questions the task asks; the questions of an input_required result are
// not answered (Outcome.Questions lists only the task's).
func (c *Client) Replay(steps ...Step) *Outcome {
	c.t.Helper()
	c.mu.Lock()
	last := c.last
	c.mu.Unlock()
	if c.era == Legacy || last == nil {
		c.t.Errorf("elicittest: Replay on %s: %v", c.era, ErrNoRetry)
		return &Outcome{Err: ErrNoRetry}
	}
	p := newPerson(steps)
	p.signIn = c.signInAt
	c.play(p)
	defer c.play(nil)
	c.hooks.take()
	out := &Outcome{}
	if r := last(out); r != nil {
		out.pending = len(r.inputs)
	}
	questions, failures := p.finish(out.String())
	out.Questions, out.Events = questions, c.hooks.take()
	c.report(failures)
	return out
}

// report fails the test with each failure of a script, adding that the
// generated files are stale when they are (staleHint: go test runs in the
// package's directory).
func (c *Client) report(failures []string) {
	c.t.Helper()
	if len(failures) == 0 {
		return
	}
	hint := staleHint(".")
	for _, f := range failures {
		c.t.Errorf("%s%s", f, hint)
	}
}

// remember keeps the retry just made, for Replay.
func (c *Client) remember(send sender, responses mcp.InputResponseMap, state string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = func(out *Outcome) *round { return send(out, responses, state) }
}

func (c *Client) play(p *person) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.person = p
}

func (c *Client) playing() *person {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.person
}

// ctx is the context of the kit's requests: the test's, which ends with
// it.
func (c *Client) ctx() context.Context {
	return c.t.Context()
}
