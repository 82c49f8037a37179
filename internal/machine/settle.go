package machine

import "strings"

// Settle: Complete and Run never see a step the person did not answer.
// Before the handler runs, every step of the flow is either answered (its
// kept answer decodes under its own form now and, for a Confirm step, says
// yes; a URL step's sign-in finished) or deliberately skipped (Flow.Ask
// said no: stepState.Skipped); a task's During steps are Run's to ask.
// Anything else is asked again (reopen), never handed on as a nil answer.

// unsettled returns the first step that is neither answered nor skipped,
// with why its kept answer does not stand ("" when it has none), or -1.
func (c *call) unsettled() (int, string) {
	for j := range c.m.steps {
		if c.task && c.m.steps[j].During {
			continue // Run asks it, through Task.Ask
		}
		a := c.st.Answers[j]
		if a == nil {
			if c.st.Steps[j].Skipped {
				continue
			}
			return j, ""
		}
		if reason := c.m.refused(j, a); reason != "" {
			return j, reason
		}
	}
	return -1, ""
}

// refused says why the kept answer a does not answer step j, or "".
func (m *Machine) refused(j int, a map[string]any) string {
	step := &m.steps[j]
	if step.Mode == ModeURL {
		if flow, ok := a["flow"].(string); ok && flow != "" && len(a) == 1 {
			return ""
		}
		return "the sign-in did not finish"
	}
	if o, ok := a[duringOutcomeKey].(string); ok && step.During && len(a) == 1 && (o == ActionDecline || o == ActionCancel) {
		return "" // a During step declined in the foreground: Run's Outcome
	}
	if err := step.Check(a); err != nil {
		return strings.TrimPrefix(err.Error(), "invalid content: ")
	}
	if !step.yes(a) {
		return "only yes confirms"
	}
	return ""
}

// reopen asks step j again: it was neither answered nor skipped, or its
// kept answer no longer stands (reason), which counts as an invalid answer.
func (c *call) reopen(j int, reason string) {
	c.log().Warn("elicitgen: a step reached the end of its flow unanswered: asking it again", "tool", c.m.tool, "step", c.m.steps[j].Key)
	c.st.Answers[j] = nil
	c.st.Step = j
	if reason != "" {
		c.invalid(j, reason)
	}
}
