// Package seal is the key ring and what it seals: the requestState a flow
// carries between rounds, the flow tokens of URL steps, and the values the
// Redis stores keep at rest. AES-256-GCM under keys newest first, bound to
// a Binding (tool, arguments, principal, audience), with its own base64url
// codec. It imports only the standard library, so that the generator and
// the server share it without a server stack.
package seal
