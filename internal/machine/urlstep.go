package machine

// URLStep is the type of a URL step in a tool declaration, and its answer:
// the flow that finished. The grant it produced is in the GrantStore,
// under the user and the step's key.
type URLStep struct {
	// Flow is the flow's identifier.
	Flow string
}

// URLAnswer reads a URL step's kept answer: nil when it was not answered.
func URLAnswer(a map[string]any) *URLStep {
	if a == nil {
		return nil
	}
	flow, _ := a["flow"].(string)
	return &URLStep{Flow: flow}
}
