package elicittest

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// person plays one call's script: it matches each question to a step,
// checks what the step expects to be shown, and answers.
type person struct {
	mu        sync.Mutex
	steps     []numbered // not asked yet, in order
	total     int
	questions []*Question
	failures  []string
	asks      map[string]int // how often each step was asked (2025-11-25 keys)
	// signIn finishes or denies the sign-in of a URL step (the client's).
	signIn func(Step, *Question) error
}

// numbered is a step with its place in the script, from 1.
type numbered struct {
	Step
	n int
}

func (s numbered) String() string {
	return fmt.Sprintf("step %d of the script (%s)", s.n, s.Step)
}

func newPerson(steps []Step) *person {
	p := &person{total: len(steps), asks: map[string]int{}}
	for i, s := range steps {
		p.steps = append(p.steps, numbered{s, i + 1})
	}
	return p
}

// answer answers q, asked in a round with others more questions not
// answered yet: nil when the script ignores it, and false when the script
// did not expect it (a failure is recorded; the call should end). content
// is the step's content as the script gives it.
func (p *person) answer(q *Question, others int) (res *mcp.ElicitResult, content any, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.questions = append(p.questions, q)
	i, ok := p.match(q, others)
	if i < 0 {
		return nil, nil, false
	}
	s := p.steps[i]
	p.steps = slices.Delete(p.steps, i, i+1) // a step that does not match is reported once
	if !ok {
		return nil, nil, false
	}
	for _, c := range s.checks {
		if want := c(q); want != "" {
			p.fail("%s: asked %s; the script expected %s", s, q, want)
		}
	}
	res, ok = p.result(s, q)
	return res, s.content, ok
}

// match returns the index of the step that answers q: the next one, or
// one of the next others+1 when a round asks several questions at once.
// When none does, it records the failure and returns the step expected
// instead, or -1 when the script has none left.
func (p *person) match(q *Question, others int) (int, bool) {
	if len(p.steps) == 0 {
		p.fail("unexpected question: asked %s; the script has no step left (it had %d)", q, p.total)
		return -1, false
	}
	for i := range min(others+1, len(p.steps)) {
		if q.Step == "" || p.steps[i].step == q.Step {
			return i, true
		}
	}
	p.fail("%s: asked %s; the script expected %q", p.steps[0], q, p.steps[0].step)
	return 0, false
}

// result is the person's reply to q at step s; nil for no answer.
func (p *person) result(s numbered, q *Question) (*mcp.ElicitResult, bool) {
	switch s.action {
	case actionIgnore:
		return nil, true
	case actionDecline, actionCancel:
		return &mcp.ElicitResult{Action: s.action}, true
	case actionSignIn, actionDeny:
		if err := p.signIn(s.Step, q); err != nil {
			p.fail("%s: asked %s; the kit cannot %s: %v", s, q, s.action, err)
			return nil, false
		}
		return &mcp.ElicitResult{Action: actionAccept}, true
	}
	content, err := contentOf(s.content)
	if err != nil {
		p.fail("%s: %v", s, err)
		return nil, false
	}
	if names, ok := schemaNames(s.content); ok && q.Mode == "form" && !sameNames(names, q.Names()) {
		p.fail("%s: asked %s; the script answers with a %T, a form with properties %s", s, q, s.content, strings.Join(names, ", "))
		return nil, false
	}
	return &mcp.ElicitResult{Action: actionAccept, Content: content}, true
}

// legacyKey returns the input key of a 2025-11-25 question of step: step,
// then step.2, step.3...
func (p *person) legacyKey(step string) string {
	if step == "" {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asks[step]++
	if n := p.asks[step]; n > 1 {
		return fmt.Sprintf("%s.%d", step, n)
	}
	return step
}

func (p *person) fail(format string, args ...any) {
	p.failures = append(p.failures, "elicittest: "+fmt.Sprintf(format, args...))
}

// finish records the steps never asked, given how the call ended, and
// returns the questions asked and the failures.
func (p *person) finish(ended string) (questions []*Question, failures []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.steps {
		p.fail("%s was never asked; the call ended with %s", s, ended)
	}
	p.steps = nil
	return slices.Clone(p.questions), slices.Clone(p.failures)
}
