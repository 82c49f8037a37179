// Package rss reads a process's resident memory, for the benchmarks that
// size the task bounds from it.
package rss

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrUnavailable is the error of KiB where /proc is not there.
var ErrUnavailable = errors.New("rss: no /proc/PID/status here")

// KiB returns the resident memory (VmRSS) of process pid, in KiB; pid 0
// is this process.
func KiB(pid int) (int64, error) {
	path := "/proc/self/status"
	if pid != 0 {
		path = fmt.Sprintf("/proc/%d/status", pid)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, ErrUnavailable
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("rss: VmRSS %q: %v", v, err)
			}
			return n, nil
		}
	}
	return 0, errors.New("rss: no VmRSS in " + path)
}
