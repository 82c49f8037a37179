// Package elicittest tests a tool's conversation in go test (and a
// prompt's or a resource template's that asks): it runs a server over
// the real Go SDK client and server, in memory or over streamable HTTP
// through runtime/serve (Options.Transport), on
// protocol 2026-07-28 (multi round-trip requests) or 2025-11-25
// (elicitation/create), with a scripted person who accepts, declines,
// cancels or ignores each question, and checks what each question showed.
//
// A URL step's sign-in is finished by the kit (SignIn) or denied
// (DenySignIn) through the key ring and grant store it gives the server,
// as the server's sign-in pages would. A task tool called by a client that
// declares the Tasks extension (Options.Tasks) runs as a task: the kit
// follows it with tasks/get, answers the questions it asks mid-run with
// tasks/update by the same script, and keeps its progress messages.
//
// A script that does not match what was asked fails the test with a
// message naming the step, what was asked and what the script expected.
// What a script cannot say (a host's own behaviour, raw rounds, hostile
// JSON-RPC, fuzzing a decoder) is in the kit's low level: packages
// hosttest, rawrpc and formcheck. docs/guide/testing.md describes the kit.
package elicittest
