package main

import (
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/redisstore"
	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// Redis as operators run it (docs/guide/many-instances.md): report processes on
// a three-master Redis Cluster, with an ACL user and its password, over
// TLS with the CA named by ELICITGEN_REDIS_CA, and presenting the client
// certificate that ELICITGEN_REDIS_CERT and ELICITGEN_REDIS_KEY name.

const opsKeys = "report-instances-key-0123456789a"

func opsKeyring() string { return base64.StdEncoding.EncodeToString([]byte(opsKeys)) }

// TestTasksOnCluster: two report processes whose -redis is a cluster URL
// (redis://NODE1?addr=NODE2&addr=NODE3): a task created on B is answered
// through A and completes; one created on A is answered through B and
// completes; a third is cancelled through the other instance.
func TestTasksOnCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster and two server processes")
	}
	start := time.Now()
	cl := redistest.StartCluster(t)
	a, b := startReport(t, "A", opsKeyring(), cl.URL), startReport(t, "B", opsKeyring(), cl.URL)
	t.Logf("cluster and instances up in %v", time.Since(start))
	t.Logf("created on B, answered through A: completed %v after the answer", runToCompletion(t, a, b, "on the cluster"))
	t.Logf("created on A, answered through B: completed %v after the answer", runToCompletion(t, b, a, "on the cluster, the other way"))
	id := startTask(t, b, a, reportArgs("a long one", 30))
	pollBoth(t, a, b, id, 5*time.Second, status("working"))
	if ack := b.must("tasks/cancel", map[string]any{"taskId": id}); ack["resultType"] != "complete" {
		t.Fatalf("tasks/cancel on B: %v", ack)
	}
	pollBoth(t, a, b, id, 2*time.Second, status("cancelled"))
	if n := cl.DBSize(); n != 3 {
		t.Errorf("the cluster holds %d keys after three tasks, want 3", n)
	}
	if !a.alive() || !b.alive() {
		t.Fatalf("an instance exited: A %v, B %v", a.err, b.err)
	}
}

// TestReportACLUser: with an ACL user allowed only the stores' keys and
// channels (the default user off), report processes given
// redis://elicit:PASSWORD@HOST:PORT/0 run a task across instances; given a
// wrong password (by -redis or by ELICITGEN_REDIS_URL), the process stops
// at start, exit status 1, with one line on stderr that names the
// settings and never shows the password.
func TestReportACLUser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server and server processes")
	}
	srv := redistest.Start(t)
	const pass = "s3cret-Pass-4711"
	for _, cmd := range [][]string{
		{"ACL", "SETUSER", "elicit", "on", ">" + pass, "~elicitgen:*", "&elicitgen:*", "+@all"},
		{"ACL", "SETUSER", "default", "off"},
	} {
		if _, err := srv.Do(cmd...); err != nil {
			t.Fatal(err)
		}
	}
	srv.Auth("elicit", pass)
	good := "redis://elicit:" + pass + "@" + srv.Addr + "/0"
	a, b := startReport(t, "A", opsKeyring(), good), startReport(t, "B", opsKeyring(), good)
	runToCompletion(t, a, b, "as an ACL user")
	wrong := "redis://elicit:wrong-" + pass + "@" + srv.Addr + "/0"
	for name, env := range map[string][]string{"flag": nil, "env": {"ELICITGEN_REDIS_URL=" + wrong}} {
		args := []string{"-redis", wrong}
		if env != nil {
			args = nil
		}
		code, out := runFailing(t, args, env)
		if code != 1 || strings.Count(out, "\n") != 0 || strings.Contains(out, pass) ||
			!strings.Contains(out, "ELICITGEN_REDIS_URL") || !strings.Contains(out, "user name and password") {
			t.Errorf("%s: exit %d, stderr %q: want status 1 and one line about the credentials, without the password", name, code, out)
		}
	}
}

// TestReportTLS: report processes given a rediss:// URL and
// ELICITGEN_REDIS_CA naming the test's CA run a task across instances;
// without it (the system's roots) or with another CA, the process stops at
// start, exit status 1, with one line saying the certificate does not
// verify.
func TestReportTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server and server processes")
	}
	srv := redistest.StartTLS(t)
	t.Setenv(redisstore.CAEnv, srv.CAFile)
	a, b := startReport(t, "A", opsKeyring(), srv.URL), startReport(t, "B", opsKeyring(), srv.URL)
	runToCompletion(t, a, b, "over TLS")
	for name, ca := range map[string]string{"system roots": "", "another CA": redistest.OtherCAFile(t)} {
		code, out := runFailing(t, []string{"-redis", srv.URL}, []string{redisstore.CAEnv + "=" + ca})
		if code != 1 || strings.Count(out, "\n") != 0 || !strings.Contains(out, "TLS certificate does not verify") ||
			!strings.Contains(out, redisstore.CAEnv) {
			t.Errorf("%s: exit %d, stderr %q: want status 1 and one line saying the certificate does not verify", name, code, out)
		}
	}
}

// TestReportClientCertificate: against a redis-server that requires a
// client certificate (--tls-auth-clients yes, its default with TLS),
// report processes given ELICITGEN_REDIS_CERT and ELICITGEN_REDIS_KEY
// (and the CA) run a task across instances; given none, the process stops
// at start, exit status 1, with one line saying the server requires one.
func TestReportClientCertificate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server and server processes")
	}
	srv := redistest.StartMutualTLS(t)
	t.Setenv(redisstore.CAEnv, srv.CAFile)
	t.Setenv(redisstore.CertEnv, srv.ClientCertFile)
	t.Setenv(redisstore.KeyEnv, srv.ClientKeyFile)
	a, b := startReport(t, "A", opsKeyring(), srv.URL), startReport(t, "B", opsKeyring(), srv.URL)
	runToCompletion(t, a, b, "over mutual TLS")
	code, out := runFailing(t, []string{"-redis", srv.URL}, []string{redisstore.CertEnv + "=", redisstore.KeyEnv + "="})
	if code != 1 || strings.Count(out, "\n") != 0 || !strings.Contains(out, "requires a client certificate") ||
		!strings.Contains(out, redisstore.CertEnv) {
		t.Errorf("no certificate: exit %d, stderr %q: want status 1 and one line saying the server requires a client certificate", code, out)
	}
	t.Logf("no certificate: exit %d, stderr: %s", code, out)
}

// runFailing runs the report binary with args and env (after the test's
// keys and no inherited ELICITGEN_REDIS_URL) and returns its exit status
// and trimmed stderr; it fails the test when the process still runs after
// 10 s.
func runFailing(t *testing.T, args, env []string) (int, string) {
	t.Helper()
	cmd := exec.Command(reportBinary(t), append([]string{"-http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(append(os.Environ(), "ELICITGEN_REDIS_URL=", "ELICITGEN_STATE_KEYS="+opsKeyring()), env...)
	var stderr hosttest.LogBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("report %v kept running; its stderr:\n%s", args, stderr.String())
	}
	return cmd.ProcessState.ExitCode(), strings.TrimSpace(stderr.String())
}

// TestTaskUpdateLatency measures, on one redis-server and on a
// three-master cluster, the time from a tasks/update sent to instance A
// until the task running on instance B has taken the answer: B's own
// update of the record, seen on the task's channel by a subscriber of the
// test. 40 tasks wait for their answer at once; they are answered one
// after the other, 50 ms apart. It checks that every answer is taken and
// every task completes, and logs the percentiles (no bound on time: the
// figures are in docs/guide/many-instances.md).
func TestTaskUpdateLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Redis servers and server processes")
	}
	for _, kind := range []string{"redis", "cluster"} {
		t.Run(kind, func(t *testing.T) {
			url := ""
			if kind == "cluster" {
				url = redistest.StartCluster(t).URL
			} else {
				url = redistest.Start(t).URL
			}
			a, b := startReport(t, "A", opsKeyring(), url), startReport(t, "B", opsKeyring(), url)
			stored, taken := measureUpdates(t, a, b, url, 40)
			t.Logf("%s: tasks/update on A to the answer stored (A's publish seen): p50 %v, p99 %v; to the task on B having taken it: p50 %v, p99 %v (n=%d)",
				kind, percentile(stored, 50), percentile(stored, 99), percentile(taken, 50), percentile(taken, 99), len(taken))
		})
	}
}

// measureUpdates starts n tasks on b (asked first on a), answers each
// through a, and returns, per task, the time from sending tasks/update
// to the first and to the second message on the task's channel (a's
// update storing the answer; b's taking it).
func measureUpdates(t *testing.T, a, b *reportInstance, url string, n int) (stored, taken []time.Duration) {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = startTask(t, a, b, reportArgs("latency", 1))
	}
	for _, id := range ids {
		pollOne(t, b, id, 20*time.Second, asks("salaries"))
	}
	time.Sleep(200 * time.Millisecond) // the asks' last updates are done
	c, err := redisstore.NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	channels := make([]string, n)
	for i, id := range ids {
		channels[i] = redisstore.DefaultPrefix + "task:" + id
	}
	ps := c.Subscribe(ctx, channels...)
	defer ps.Close()
	for range channels {
		if _, err := ps.ReceiveTimeout(ctx, 5*time.Second); err != nil {
			t.Fatalf("subscribing: %v", err)
		}
	}
	msgs := ps.Channel()
	for _, id := range ids {
		sent := time.Now()
		answerSalaries(t, a, id)
		for i := range 2 {
			at := nextOn(t, msgs, redisstore.DefaultPrefix+"task:"+id)
			if i == 0 {
				stored = append(stored, at.Sub(sent))
			} else {
				taken = append(taken, at.Sub(sent))
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, id := range ids {
		pollOne(t, b, id, 20*time.Second, status("completed"))
	}
	return stored, taken
}

// pollOne polls tasks/get of id on p every 50 ms until cond holds, or
// fails after within.
func pollOne(t *testing.T, p *reportInstance, id string, within time.Duration, cond func(map[string]any) bool) {
	t.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(50 * time.Millisecond) {
		got := p.get(id)
		if cond(got) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s on %s after %v: %v", id, p.name, within, got)
		}
	}
}

// nextOn returns when the next message on channel arrived, skipping
// those of other channels (the progress of tasks answered before).
func nextOn(t *testing.T, msgs <-chan *redis.Message, channel string) time.Time {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case m := <-msgs:
			if m.Channel == channel {
				return time.Now()
			}
		case <-timeout:
			t.Fatalf("no message on %s within 5 s", channel)
		}
	}
}

// percentile is the p-th percentile (nearest rank) of ds.
func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := max((p*len(s)+99)/100-1, 0)
	return s[i].Round(10 * time.Microsecond)
}
