//go:build race

package main

// raceEnabled reports whether the tests run under the race detector, which
// makes the 10,000 requests of TestJunkAddsNoSeries nine times slower.
const raceEnabled = true
