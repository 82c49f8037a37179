package gen

import (
	"os"
	"runtime/debug"
)

// BatchGCPercent is the garbage collector's target percentage the command
// runs with (GOGC=400 instead of 100). A run is short and most of its heap
// is the loaded packages, live until the end: at the default every
// collection marks all of them again to free little. Profiling the
// generator on 500 forms put about a third of its own time in the
// collector; at 400 the heap may grow to five times the live data before a
// collection, which for one package and the export data of its imports is
// tens of megabytes. cmd/compile and esbuild make the same trade.
const BatchGCPercent = 400

// TuneGCForBatch sets the collector's percentage to [BatchGCPercent] for a
// short batch run, unless the user chose one (GOGC in the environment), and
// returns the function that restores the previous setting. The command
// calls it once, first thing; the benchmarks call it around the run they
// measure, as the command does.
func TuneGCForBatch() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(BatchGCPercent)
	return func() { debug.SetGCPercent(old) }
}
