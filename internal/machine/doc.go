// Package machine is the interpreter of the step tables elicitgen
// generates: a tool's, a prompt's or a resource's rounds of questions over
// MRTR (and over 2025-11-25 server-to-client requests), answers judged by
// the generated decoders, re-asks with reasons, fallbacks, preview then
// confirm, single use, URL steps, and what a task handler holds (Task and
// its Ask). It declares the seams the rooms above fill: LegacyAsks (the
// transport's sessions), TaskSlot (the tasks wire). Servers reach it
// through package runtime; generated code through runtime/elicitimpl.
package machine
