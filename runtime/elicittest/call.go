package elicittest

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRounds bounds the rounds of one 2026-07-28 call the kit plays, above
// the server's own bound (ToolOptions.MaxRounds).
const maxRounds = 20

// ErrNoRetry is the error of a Replay with no retry to send again: on
// 2025-11-25, or before any call asked a question.
var ErrNoRetry = errors.New("elicittest: no retry to replay")

// Call calls tool with args (a map, a struct of the tool's arguments, or
// nil) and plays steps as the person: one step for each question, in
// order. It fails t (without stopping it) when a question does not match
// its step, when a question has no step, and when a step is never asked;
// the outcome is what the model got.
func (c *Client) Call(tool string, args any, steps ...Step) *Outcome {
	c.t.Helper()
	p := newPerson(steps)
	c.hooks.take()
	c.play(p)
	defer c.play(nil)
	var out *Outcome
	if c.era == Legacy {
		res, err := c.session.CallTool(c.ctx(), &mcp.CallToolParams{Name: tool, Arguments: args})
		out = &Outcome{Result: res, Err: err}
	} else {
		out = c.rounds(p, tool, args)
	}
	questions, failures := p.finish(out.String())
	out.Questions, out.Events = questions, c.hooks.take()
	for _, f := range failures {
		c.t.Errorf("%s", f)
	}
	return out
}

// rounds plays a 2026-07-28 call: each input_required result's questions
// answered by the script, and the retry sent, until the call ends or the
// script breaks off.
func (c *Client) rounds(p *person, tool string, args any) *Outcome {
	params := &mcp.CallToolParams{Name: tool, Arguments: args}
	for range maxRounds {
		res, err := c.session.CallTool(c.ctx(), params)
		if err != nil || !res.NeedsInput() {
			return &Outcome{Result: res, Err: err}
		}
		responses, ok := c.round(p, res)
		if !ok {
			return &Outcome{Result: res}
		}
		params = &mcp.CallToolParams{Name: tool, Arguments: args, InputResponses: responses, RequestState: res.RequestState}
		c.mu.Lock()
		c.last = params
		c.mu.Unlock()
	}
	p.mu.Lock()
	p.fail("the call still asked after %d rounds", maxRounds)
	p.mu.Unlock()
	return &Outcome{}
}

// round answers the questions of one input_required result, in the order
// of their keys.
func (c *Client) round(p *person, res *mcp.CallToolResult) (mcp.InputResponseMap, bool) {
	keys := make([]string, 0, len(res.InputRequests))
	for k := range res.InputRequests {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	responses := mcp.InputResponseMap{}
	for i, k := range keys {
		params, ok := res.InputRequests[k].(*mcp.ElicitParams)
		if !ok {
			p.mu.Lock()
			p.fail("input request %s is a %T, not an elicitation: the kit answers elicitations only", k, res.InputRequests[k])
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
// answered by the running call's script.
func (c *Client) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p := c.playing()
	if p == nil {
		return nil, errors.New("elicittest: a question outside Call")
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

// Replay sends the last retry of the last call again, as it was sent
// (2026-07-28 only): a step declared once refuses it. Without a retry to
// send it fails t and returns ErrNoRetry.
func (c *Client) Replay() *Outcome {
	c.t.Helper()
	c.mu.Lock()
	last := c.last
	c.mu.Unlock()
	if c.era == Legacy || last == nil {
		c.t.Errorf("elicittest: Replay on %s: %v", c.era, ErrNoRetry)
		return &Outcome{Err: ErrNoRetry}
	}
	c.hooks.take()
	res, err := c.session.CallTool(c.ctx(), last)
	return &Outcome{Result: res, Err: err, Events: c.hooks.take()}
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
