//go:build race

package transport_test

// raceEnabled reports whether the tests run under the race detector, whose
// instrumentation changes the heap and resident memory figures of the
// memory bounds' tests (and slows their floods tenfold): they skip under
// it, and .ci/test runs them plainly.
const raceEnabled = true
