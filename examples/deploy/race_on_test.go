//go:build race

package main

// raceEnabled reports whether the tests run under the race detector, whose
// instrumentation changes the heap figures TestHostileLoadMemoryIsBounded
// measures (and slows it tenfold).
const raceEnabled = true
