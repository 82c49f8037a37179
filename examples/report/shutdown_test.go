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

	"github.com/elicitgen/elicitgen/runtime/otelelicit/otelsetup/promtest"

	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
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
// finishes and completes; the one still waiting is handed back at the end
// of the drain (report is restartable): the other instance takes it over
// at its next tasks/get, without waiting for the lease (20 s), asks the
// open question again and completes it. The process exits within the
// drain and a second, with status 0.
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
	if got := b.get(stays); got["status"] == "failed" || got["statusMessage"] != "restarted after its server stopped" {
		t.Errorf("the task still waiting at the end of the drain, at the next tasks/get on B: %v", got)
	}
	pollBoth(t, b, b, stays, 10*time.Second, asks("salaries"))
	answerSalaries(t, b, stays)
	if got := waitDone(t, b, stays); !strings.Contains(taskText(t, got), "salaries included") {
		t.Errorf("the task handed back: %v", got)
	}
	if !strings.Contains(a.log.String(), "1 tasks stopped at shutdown") {
		t.Errorf("A's log does not say what it stopped:\n%s", a.log)
	}
}

// TestReportKilledTaskRestarts: the instance running a report task is
// killed (SIGKILL: nothing runs after) after the salaries question was
// answered; the other instance, serving the client's tasks/get, finds the
// lease lapsed (1 s here), takes the task over and writes the report again
// from the start with the recorded answer: the task completes with the
// salaries included and is never input_required again. Repeated
// ELICITGEN_KILLS times (default 2), reporting the time from the kill to
// the takeover (polled every 100 ms) and to the completion.
func TestReportKilledTaskRestarts(t *testing.T) {
	const lease = time.Second
	kills := 2
	if n, err := strconv.Atoi(os.Getenv("ELICITGEN_KILLS")); err == nil && n > 0 {
		kills = n
	}
	metrics := freeAddr(t)
	srv, ps := sharedReports(t, 1, "-task-lease", lease.String(), "-metrics", metrics)
	b := ps[0]
	keys := base64.StdEncoding.EncodeToString([]byte("report-shutdown-key-0123456789ab"))
	var taken, done []time.Duration
	for i := range kills {
		a := startReport(t, "victim"+strconv.Itoa(i), keys, srv.URL, "-task-lease", lease.String())
		id := startTask(t, a, a, reportArgs("killed", 2))
		pollBoth(t, a, b, id, 10*time.Second, asks("salaries"))
		answerSalaries(t, b, id)
		pollBoth(t, a, b, id, 5*time.Second, func(m map[string]any) bool {
			msg, _ := m["statusMessage"].(string)
			return m["status"] == "working" && strings.Contains(msg, "Salaries")
		})
		if err := a.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		<-a.exited
		taken = append(taken, waitTakeover(t, b, id, killed))
		got := waitDone(t, b, id)
		done = append(done, time.Since(killed))
		if text := taskText(t, got); !strings.Contains(text, "salaries included") || !strings.Contains(text, "markdown") {
			t.Errorf("the restarted report: %q", text)
		}
	}
	// The instance that took the tasks over counts them, by outcome.
	restarted := promtest.Sample(promtest.Scrape(t, "http://"+metrics+"/metrics")["elicitgen_tasks_takeovers_total"],
		map[string]string{"gen_ai_tool_name": "report", "elicitgen_outcome": "restarted"})
	if restarted != float64(kills) {
		t.Errorf("elicitgen_tasks_takeovers_total{outcome=restarted} = %v, want %d", restarted, kills)
	}
	t.Logf("%d kills: taken over after p50 %v, p99 %v; completed after p50 %v, p99 %v (lease %v, polled every 100 ms)",
		kills, pct(taken, 50), pct(taken, 99), pct(done, 50), pct(done, 99), lease)
	if worst := pct(taken, 100); worst > lease+500*time.Millisecond {
		t.Errorf("taken over after %v at worst, want within the lease (%v) and a little", worst, lease)
	}
}

// waitTakeover polls tasks/get on p until the task is restarted there, and
// returns the time since killed.
func waitTakeover(t *testing.T, p *reportInstance, id string, killed time.Time) time.Duration {
	t.Helper()
	for {
		got := p.get(id)
		if msg, _ := got["statusMessage"].(string); got["status"] == "working" && !strings.Contains(msg, "Salaries") {
			return time.Since(killed) // restarted: writing from the start
		}
		if got["status"] != "working" || time.Since(killed) > 10*time.Second {
			t.Fatalf("after the kill: %v", got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitDone polls tasks/get on p until the task completes; it must never
// ask again.
func waitDone(t *testing.T, p *reportInstance, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := p.get(id)
		switch {
		case got["status"] == "completed":
			return got
		case got["status"] != "working" || time.Now().After(deadline):
			t.Fatalf("the restarted task: %v", got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// pct is the p-th percentile of ds.
func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)].Round(time.Millisecond)
}

// TestReportKilledTaskFails: with restarts turned off on the other
// instance (-task-restarts -1), a task whose instance is killed (SIGKILL)
// fails there, saying the server stopped, within the lease (1 s) and a
// client's poll (the task's pollInterval, 1 s): the client learns at once
// that its task will not move, instead of polling it until its TTL.
func TestReportKilledTaskFails(t *testing.T) {
	const lease, poll = time.Second, time.Second
	srv, ps := sharedReports(t, 1, "-task-lease", lease.String(), "-task-restarts", "-1")
	b := ps[0]
	keys := base64.StdEncoding.EncodeToString([]byte("report-shutdown-key-0123456789ab"))
	a := startReport(t, "victim", keys, srv.URL, "-task-lease", lease.String())
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
			if msg := taskErrorMessage(got); msg != "the server stopped while running this task; call the tool again" {
				t.Errorf("failed with %q", msg)
			}
			break
		}
		if got["status"] != "input_required" || time.Since(killed) > 10*time.Second {
			t.Fatalf("after the kill: %v", got)
		}
		time.Sleep(poll)
	}
	took := time.Since(killed)
	t.Logf("failed %v after the kill, as a client polling every %v sees it (lease %v)", took.Round(time.Millisecond), poll, lease)
	if took > lease+poll+500*time.Millisecond {
		t.Errorf("failed %v after the kill, want within the lease (%v) and a poll (%v)", took, lease, poll)
	}
}
