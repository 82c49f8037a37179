package signin

import "github.com/elicitgen/elicitgen/internal/seal"

// ConnectFlow is one URL-mode flow, as ConnectOptions.AuthorizeURL and
// ConnectOptions.Exchange see it: what the flow token carries, and the
// user the connect pages verified.
type ConnectFlow struct {
	// ID is the flow's random identifier, also kept in the sealed
	// requestState of the tool call that started it.
	ID string
	// Subject is the principal of the tool call that started the flow,
	// the only user who may complete it: the pages have checked that the
	// browser is signed in as this user (ConnectOptions.Authenticate)
	// before AuthorizeURL and Exchange see the flow. The flow token
	// carries its SHA-256 digest, not the user id.
	Subject string
	// Tool is the name of the tool whose URL step started the flow.
	Tool string
	// Step is the URL step's key, also the name the grant is stored
	// under (backend.GrantStore.PutGrant).
	Step string
}

// flowOf is the ConnectFlow the options' functions see of f.
func flowOf(f seal.ConnectFlow) ConnectFlow {
	return ConnectFlow{ID: f.ID, Subject: f.Subject, Tool: f.Tool, Step: f.Step}
}

// MaxFlowTokenLen bounds a flow token read from a URL.
const MaxFlowTokenLen = seal.MaxFlowTokenLen
