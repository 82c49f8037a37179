package gen

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestTuneGCForBatch: GOGC=400 for the run and the old setting restored
// after it; a GOGC the user set is left alone.
func TestTuneGCForBatch(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	if v, ok := os.LookupEnv("GOGC"); ok {
		defer os.Setenv("GOGC", v)
	}
	os.Unsetenv("GOGC")
	restore := TuneGCForBatch()
	if got := debug.SetGCPercent(100); got != BatchGCPercent {
		t.Errorf("during the run: GOGC=%d, want %d", got, BatchGCPercent)
	}
	debug.SetGCPercent(BatchGCPercent)
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after the run: GOGC=%d, want 100 again", got)
	}

	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	TuneGCForBatch()()
	if got := debug.SetGCPercent(100); got != 150 {
		t.Errorf("with GOGC=150 in the environment: GOGC=%d, want 150 left alone", got)
	}
}
