// Package signin serves the pages of a URL step's sign-in: the connect
// page a person opens from their client, the provider's callback, and the
// result page, over the flow token of a tool's URL step. A server mounts
// [NewConnectHandlers]'s handlers beside its MCP endpoint; the tool's
// Complete reads the grant the callback recorded.
//
// The package's files follow the sign-in: options.go (ConnectOptions,
// NewConnectHandlers), flow.go (ConnectFlow), connect.go (the connect
// page), callback.go (the provider's callback and the result page),
// browser.go (the nonce cookie that ties a sign-in to its browser),
// account.go (the browser's user, LoginURL and SignOutURL), sealed.go
// (what the pages seal) and pages.go (rendering and headers).
package signin
