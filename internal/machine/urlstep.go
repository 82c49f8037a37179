package machine

import (
	"context"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// URLAnswer reads a URL step's kept answer: nil when it was not answered.
func URLAnswer(a map[string]any) *elicitrt.URLStep {
	if a == nil {
		return nil
	}
	flow, _ := a["flow"].(string)
	return &elicitrt.URLStep{Flow: flow}
}

// finishURLStep records URL step j's flow as its answer.
func (st *flowState) finishURLStep(j int) {
	st.Answers[j] = map[string]any{"flow": st.Flow}
	st.Flow, st.Token = "", ""
}

// LegacyURLUnfinished is the result of a 2025-11-25 call whose URL step the
// user accepted but did not finish within ToolOptions.LegacyURLWait.
const LegacyURLUnfinished = "The step in the browser has not finished yet: finish it, then ask again."

// flowFinished reports whether the grant store recorded flow as completed
// by principal (a completion for anyone else does not count), or as
// denied: the person refused at the third party (GrantStore.DenyFlow; only
// the flow's subject, in the browser that started it, can record that).
func (m *Machine) flowFinished(ctx context.Context, flow, principal string) (finished, denied bool, err error) {
	subject, done, err := m.opts.Grants.FlowSubject(ctx, flow)
	if err != nil || !done {
		return false, false, err
	}
	return subject != "" && subject == principal, subject == "", nil
}

// awaitFlow waits until flow finishes for principal, asking the grant
// store at growing intervals (from 100 ms to 2 s), for at most
// LegacyURLWait. finished is false when the wait ran out; denied is true,
// at once, when the flow was denied (nothing more will come); err is the store's error,
// or the context's when the call ends first.
func (m *Machine) awaitFlow(ctx context.Context, flow, principal string) (finished, denied bool, err error) {
	if m.opts.LegacyURLWait < 0 {
		return false, false, nil
	}
	deadline := time.NewTimer(m.opts.LegacyURLWait)
	defer deadline.Stop()
	interval := 100 * time.Millisecond
	tick := time.NewTimer(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false, false, ctx.Err()
		case <-deadline.C:
			return false, false, nil
		case <-tick.C:
		}
		if finished, denied, err := m.flowFinished(ctx, flow, principal); finished || denied || err != nil {
			return finished, denied, err
		}
		interval = min(2*interval, 2*time.Second)
		tick.Reset(interval)
	}
}
