// Package e2estats lets the end-to-end benchmark (bench/e2e) read a
// server process's own counters: its CPU time, heap allocations and
// resident memory. A server calls Start at start-up; when the environment
// variable ELICITGEN_E2E_STATS names a listen address, Start serves
// GET /stats there and logs "e2estats: serving at ADDR" on standard error;
// otherwise it does nothing. It also serves POST /profile/start and
// POST /profile/stop, which returns a CPU profile of the time between, and
// GET /profile/allocs, the heap profile of allocations since start. An
// address beyond loopback (":0", "0.0.0.0:PORT", another host) is logged
// at Warn, naming it: the benchmark listens on 127.0.0.1.
//
// The counters come from the process itself rather than from /proc/PID/stat
// because getrusage reports CPU time in microseconds, where /proc counts
// clock ticks (10 ms), and because heap allocations are only visible inside
// the Go runtime.
package e2estats

import (
	"bytes"
	"encoding/json"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Env is the environment variable that turns the stats endpoint on.
const Env = "ELICITGEN_E2E_STATS"

// Stats is what GET /stats answers, as JSON.
type Stats struct {
	// CPUNanos is the process's user plus system CPU time.
	CPUNanos int64 `json:"cpuNanos"`
	// Allocs is the number of heap objects allocated since start.
	Allocs uint64 `json:"allocs"`
	// AllocBytes is the number of heap bytes allocated since start.
	AllocBytes uint64 `json:"allocBytes"`
	// GCs is the number of completed GC cycles.
	GCs uint64 `json:"gcs"`
	// RSS is the resident set size now, in bytes (VmRSS).
	RSS int64 `json:"rss"`
}

// Read returns the calling process's counters.
func Read() Stats {
	var s Stats
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.CPUNanos = ru.Utime.Nano() + ru.Stime.Nano()
	}
	samples := []metrics.Sample{
		{Name: "/gc/heap/allocs:objects"},
		{Name: "/gc/heap/allocs:bytes"},
		{Name: "/gc/cycles/total:gc-cycles"},
	}
	metrics.Read(samples)
	s.Allocs = samples[0].Value.Uint64()
	s.AllocBytes = samples[1].Value.Uint64()
	s.GCs = samples[2].Value.Uint64()
	s.RSS = rss()
	return s
}

// rss reads VmRSS from /proc/self/status; 0 where there is none.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// Start serves GET /stats on the address in ELICITGEN_E2E_STATS, if set,
// in the background. A failure to listen stops the process: a benchmark
// run without its counters would measure nothing.
func Start() {
	addr := os.Getenv(Env)
	if addr == "" {
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatalf("e2estats: %v", err)
	}
	announce(addr, ln.Addr())
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(Read())
	})
	// A CPU profile of the process between POST /profile/start and
	// POST /profile/stop, which answers it (pprof's format).
	var (
		mu      sync.Mutex
		profile *bytes.Buffer
	)
	mux.HandleFunc("POST /profile/start", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if profile != nil {
			http.Error(w, "already profiling", http.StatusConflict)
			return
		}
		profile = new(bytes.Buffer)
		if err := pprof.StartCPUProfile(profile); err != nil {
			profile = nil
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("POST /profile/stop", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if profile == nil {
			http.Error(w, "not profiling", http.StatusConflict)
			return
		}
		pprof.StopCPUProfile()
		w.Write(profile.Bytes())
		profile = nil
	})
	// The heap profile of allocations since start (pprof's format; take
	// two and compare with pprof -diff_base).
	mux.HandleFunc("GET /profile/allocs", func(w http.ResponseWriter, r *http.Request) {
		pprof.Lookup("allocs").WriteTo(w, 0)
	})
	go func() { log.Fatalf("e2estats: %v", http.Serve(ln, mux)) }()
}

// announce logs where the stats and profiles are served, and warns when
// addr (as the environment gave it) listens beyond loopback: anyone who
// reaches it could read the process's profiles.
func announce(addr string, at net.Addr) {
	log.Printf("e2estats: serving at %s", at)
	if !loopback(addr) {
		slog.Warn("e2estats: profiles at "+addr+" are served beyond loopback, to whoever reaches this address: use 127.0.0.1", "addr", addr)
	}
}

// loopback reports whether addr (host:port) listens on loopback only:
// localhost, 127.0.0.0/8 or ::1; an empty host, 0.0.0.0, ::, another
// address, another name or what does not parse listens beyond it. (The
// rule of otelsetup's metrics address; this module does not depend on
// that one.)
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	host, _, _ = strings.Cut(host, "%")
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
