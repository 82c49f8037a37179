package main

import (
	"encoding/base64"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/internal/redistest"
)

// taskErrorMessage is the message of a failed task's error.
func taskErrorMessage(task map[string]any) string {
	e, _ := task["error"].(map[string]any)
	msg, _ := e["message"].(string)
	return msg
}

// sharedReports starts a Redis and n report processes on it, each with
// flags.
func sharedReports(t *testing.T, n int, flags ...string) (*redistest.Server, []*reportInstance) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a redis-server and server processes")
	}
	srv := redistest.Start(t)
	keys := base64.StdEncoding.EncodeToString([]byte("report-shutdown-key-0123456789ab"))
	var ps []*reportInstance
	for i := range n {
		ps = append(ps, startReport(t, string(rune('A'+i)), keys, srv.URL, flags...))
	}
	return srv, ps
}

// exitWithin waits for p to exit and returns how long it took after since.
func exitWithin(t *testing.T, p *reportInstance, since time.Time, within time.Duration) time.Duration {
	t.Helper()
	select {
	case <-p.exited:
		return time.Since(since)
	case <-time.After(within):
		t.Fatalf("%s still running %v after SIGTERM", p.name, within)
		return 0
	}
}

// TestReportShutdown: SIGTERM to the instance running two tasks, with
// -drain 2s. The task whose question is answered during the drain
// finishes and completes; the one still waiting fails at the end of the
// drain saying the server shut down, as the other instance shows; the
// process exits within the drain and a second, with status 0.
func TestReportShutdown(t *testing.T) {
	const drain = 2 * time.Second
	_, ps := sharedReports(t, 2, "-drain", drain.String())
	a, b := ps[0], ps[1]
	finishes := startTask(t, a, a, reportArgs("finishes", 1))
	stays := startTask(t, a, a, reportArgs("stays", 1))
	pollBoth(t, a, b, finishes, 10*time.Second, asks("salaries"))
	pollBoth(t, a, b, stays, 10*time.Second, asks("salaries"))
	signalled := time.Now()
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	answerSalaries(t, b, finishes) // B stores the answer; A's task takes it
	took := exitWithin(t, a, signalled, drain+3*time.Second)
	if a.err != nil {
		t.Errorf("exit after SIGTERM: %v\n%s", a.err, a.log)
	}
	if took > drain+time.Second {
		t.Errorf("exited %v after SIGTERM, want within the drain (%v) and a second", took, drain)
	}
	t.Logf("exited %v after SIGTERM (drain %v)", took, drain)
	if got := b.get(finishes); got["status"] != "completed" || !strings.Contains(taskText(t, got), "salaries included") {
		t.Errorf("the task answered during the drain: %v", got)
	}
	if got := b.get(stays); got["status"] != "failed" || !strings.Contains(taskErrorMessage(got), "shut down") {
		t.Errorf("the task still waiting at the end of the drain: %v", got)
	}
	if !strings.Contains(a.log.String(), "1 tasks failed at shutdown") {
		t.Errorf("A's log does not say what it failed:\n%s", a.log)
	}
}

// TestReportKilledTaskFails: the instance running a task is killed
// (SIGKILL: nothing runs after); the other instance fails the task, saying
// the server stopped, within the lease (1 s here): a client polling every
// second (the task's pollInterval) sees it within the lease and a poll.
// Polled every 100 ms to measure the time itself. Repeated
// ELICITGEN_KILLS times (default 3), reporting the median and the worst.
func TestReportKilledTaskFails(t *testing.T) {
	const lease = time.Second
	kills := 3
	if n, err := strconv.Atoi(os.Getenv("ELICITGEN_KILLS")); err == nil && n > 0 {
		kills = n
	}
	srv, ps := sharedReports(t, 1, "-task-lease", lease.String())
	b := ps[0]
	keys := base64.StdEncoding.EncodeToString([]byte("report-shutdown-key-0123456789ab"))
	var took []time.Duration
	for i := range kills {
		a := startReport(t, "victim"+strconv.Itoa(i), keys, srv.URL, "-task-lease", lease.String())
		id := startTask(t, a, a, reportArgs("killed", 1))
		pollBoth(t, a, b, id, 10*time.Second, asks("salaries"))
		if err := a.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		<-a.exited
		for {
			got := b.get(id)
			if got["status"] == "failed" {
				if msg := taskErrorMessage(got); !strings.Contains(msg, "server stopped") {
					t.Fatalf("failed with %q", msg)
				}
				break
			}
			if got["status"] != "input_required" || time.Since(killed) > 10*time.Second {
				t.Fatalf("after the kill: %v", got)
			}
			time.Sleep(100 * time.Millisecond) // finer than a client's poll: the time the failure takes
		}
		took = append(took, time.Since(killed))
	}
	slices.Sort(took)
	worst := took[len(took)-1]
	t.Logf("%d kills: failed after p50 %v, p99 %v (lease %v, polled every 100 ms)",
		kills, took[len(took)/2].Round(time.Millisecond), took[min(len(took)-1, len(took)*99/100)].Round(time.Millisecond), lease)
	if worst > lease+500*time.Millisecond {
		t.Errorf("worst %v, want within the lease (%v) and a little", worst, lease)
	}
}
