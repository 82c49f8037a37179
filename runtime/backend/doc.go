// Package backend is the contract between the elicitgen runtime and what
// it keeps and reports to, as database/sql/driver is database/sql's: the
// stores a server's instances share (TaskStore with its TaskRecord,
// GrantStore for URL steps, ReplayGuard for single-use claims), their
// in-memory implementations, which are the defaults, and the Hooks that
// observe requests and Events.
//
// A third-party store or observer implements these interfaces and imports
// only this package: runtime/redisstore and runtime/otelelicit do. A
// server names its choices in runtime.ToolOptions (Tasks, Grants, Replay,
// Hooks). The package imports the standard library only.
package backend
