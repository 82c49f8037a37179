// Package upgrade is a rolling deploy in miniature: packages v1 and v2 are
// two releases of one server whose tools of the same names differ (steps
// reordered, replaced, a field renamed, an enum value removed, a message
// reworded, a step inserted or removed). A flow that starts on release 1
// and whose retry lands on release 2, the two sharing one key ring, as
// instances behind one address do during a deploy, is never given release
// 1's answers for answers to release 2's questions: release 2 asks again
// from the first step, saying the tool changed (docs/guide/deploys.md). A
// tool that changed only in what no person sees (its description, its
// handler's code) keeps its in-flight flows. upgrade_test.go is the check
// to copy beside a server deployed while people answer; the tests that
// hold every kind of change run the same two releases, written by hand, in
// internal/machine/skew_test.go.
package upgrade
