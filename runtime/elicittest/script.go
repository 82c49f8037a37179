package elicittest

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Key names a step by its key, where no generated step constant does.
type Key string

// String returns the key.
func (k Key) String() string { return string(k) }

// What the person does at a step.
const (
	actionAccept  = "accept"
	actionDecline = "decline"
	actionCancel  = "cancel"
	actionIgnore  = "ignore"
)

// Step is what the person does with one question, and what they expect
// to be shown. Steps are values: each check returns a new Step.
type Step struct {
	step    string // the step's key
	action  string
	content any
	checks  []check
	grant   []byte // what a SignIn stores
}

// check returns "" when q is as expected, else what was expected.
type check func(q *Question) string

// Accept answers the question of step with content: a value of the
// generated form type (Target{Environment: Prod}), or a map[string]any
// sent as is. step is a generated step constant (DeployStepTarget) or a
// Key.
func Accept(step fmt.Stringer, content any) Step {
	return Step{step: step.String(), action: actionAccept, content: content}
}

// Decline declines the question of step.
func Decline(step fmt.Stringer) Step { return Step{step: step.String(), action: actionDecline} }

// Cancel dismisses the question of step without choosing.
func Cancel(step fmt.Stringer) Step { return Step{step: step.String(), action: actionCancel} }

// Ignore leaves the question of step unanswered: on 2026-07-28 the retry
// carries no answer to it; on 2025-11-25 the question waits until the
// server gives up (ToolOptions.LegacyAnswerWait).
func Ignore(step fmt.Stringer) Step { return Step{step: step.String(), action: actionIgnore} }

// with returns a copy of s with c added.
func (s Step) with(c check) Step {
	s.checks = append(slices.Clip(s.checks), c)
	return s
}

// Message expects the question's message, a re-ask's reason aside.
func (s Step) Message(want string) Step {
	return s.with(func(q *Question) string {
		return expect(q.Message == want, "message %q", want)
	})
}

// Reason expects the question to be a re-ask whose reason contains part.
func (s Step) Reason(part string) Step {
	return s.with(func(q *Question) string {
		return expect(q.Reason != "" && strings.Contains(q.Reason, part), "a re-ask with a reason containing %q", part)
	})
}

// Fields expects the form's properties to be names, in any order: the
// SDK's client decodes the requested schema into a map, which keeps none.
func (s Step) Fields(names ...string) Step {
	return s.with(func(q *Question) string {
		return expect(sameNames(q.Names(), names), "properties %s", strings.Join(names, ", "))
	})
}

// sameNames reports whether a and b hold the same names, in any order.
func sameNames(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Title expects property to have title.
func (s Step) Title(property, title string) Step {
	return s.with(func(q *Question) string {
		p, ok := q.Property(property)
		return expect(ok && p.Title == title, "property %s titled %q (shown: %q)", property, title, p.Title)
	})
}

// Default expects property to show the default value (as JSON decodes
// it: a number is a float64); nil expects no default.
func (s Step) Default(property string, value any) Step {
	return s.with(func(q *Question) string {
		p, ok := q.Property(property)
		return expect(ok && reflect.DeepEqual(p.Default, value), "property %s with default %v (shown: %v)", property, value, p.Default)
	})
}

// Check expects f to return nil for the question.
func (s Step) Check(f func(*Question) error) Step {
	return s.with(func(q *Question) string {
		if err := f(q); err != nil {
			return err.Error()
		}
		return ""
	})
}

// expect returns "" when ok, else the expectation.
func expect(ok bool, format string, args ...any) string {
	if ok {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

// String describes the step for a failure message.
func (s Step) String() string {
	return fmt.Sprintf("%s %q", s.action, s.step)
}
