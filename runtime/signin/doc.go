// Package signin serves the pages of a URL step's sign-in: the connect
// page a person opens from their client, the provider's callback, and the
// result page, over the flow token of a tool's URL step. A server mounts
// [NewConnectHandlers]'s handlers beside its MCP endpoint; the tool's
// Complete reads the grant the callback recorded.
package signin

import "github.com/elicitgen/elicitgen/internal/seal"

// ConnectFlow is one URL-mode flow: what the flow token carries, and the
// user the connect pages verified.
type ConnectFlow = seal.ConnectFlow

// MaxFlowTokenLen bounds a flow token read from a URL.
const MaxFlowTokenLen = seal.MaxFlowTokenLen
