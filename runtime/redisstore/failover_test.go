package redisstore

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/redis/go-redis/v9"

	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// The stores through a Redis Cluster failover: three masters with one
// replica each, --cluster-node-timeout 1000 ms. A master is killed
// (SIGKILL) and its replica takes its slots over.

// failoverTimeout is the stores' Options.Timeout in the failover test.
const failoverTimeout = time.Second

// failoverBound is how long after a kill the tests wait for the cluster's
// failover and for the stores to serve again (a few seconds here, more on
// a loaded machine) before they fail.
const failoverBound = 45 * time.Second

// failoverSide is one instance's stores: one cluster client each.
type failoverSide struct {
	guard  *ReplayGuard
	grants *Grants
	tasks  *Tasks
}

// failoverState is what the test writes before the kill, every key on
// one master: a replay claim, a grant and a task at version 2.
type failoverState struct {
	claimID, subject, taskID string
	master                   *redistest.Server
}

func newFailoverSide(t *testing.T, c redis.UniversalClient) *failoverSide {
	t.Helper()
	o := &Options{Keys: testKeys(t), Timeout: failoverTimeout, Logger: quiet}
	grants, err := NewGrants(c, o)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := NewTasks(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return &failoverSide{guard: NewReplayGuard(c, o), grants: grants, tasks: tasks}
}

// onMaster returns the first of prefix+"0", prefix+"1", ... whose key
// (keyOf) is on master.
func onMaster(cl *redistest.Cluster, master *redistest.Server, prefix string, keyOf func(string) string) string {
	for i := 0; ; i++ {
		if id := prefix + strconv.Itoa(i); cl.MasterOf(keyOf(id)) == master {
			return id
		}
	}
}

// writeFailoverState picks a task, a claim and a grant whose keys are on
// the task's master, writes them through a and b, and returns them.
func writeFailoverState(t *testing.T, cl *redistest.Cluster, a, b *failoverSide) *failoverState {
	t.Helper()
	ctx := context.Background()
	st := &failoverState{taskID: "task-0"}
	st.master = cl.MasterOf(a.tasks.key(st.taskID))
	st.claimID = onMaster(cl, st.master, "flow-", func(id string) string { return a.guard.o.Prefix + "replay:" + id })
	st.subject = onMaster(cl, st.master, "user-", func(s string) string {
		bind := grantBinding(s, "billing")
		return a.grants.grantKey(&bind)
	})
	if first, err := a.guard.Claim(ctx, st.claimID, time.Hour); !first || err != nil {
		t.Fatalf("Claim: %v %v", first, err)
	}
	if err := b.grants.PutGrant(ctx, st.subject, "billing", []byte("tok"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := a.tasks.Create(ctx, newTaskRecord(st.taskID, time.Hour)); err != nil {
		t.Fatal(err)
	}
	if r, err := b.tasks.Update(ctx, st.taskID, func(r *backend.TaskRecord) error { r.StatusMessage = "before"; return nil }); r == nil || err != nil || r.Version != 2 {
		t.Fatalf("Update: %v %v", r, err)
	}
	return st
}

// probe calls f every 50 ms until it succeeds (within failoverBound) and returns
// the time from kill to that call's success. Every failed call must wrap
// ErrUnavailable and return within the store's timeout (and a margin for
// a busy machine); f fails the test itself on a wrong answer.
func probe(t *testing.T, name string, kill time.Time, f func(context.Context) (bool, error)) time.Duration {
	t.Helper()
	failures, slowest := 0, time.Duration(0)
	for time.Since(kill) < failoverBound {
		start := time.Now()
		ok, err := f(context.Background())
		took := time.Since(start)
		slowest = max(slowest, took)
		switch {
		case err == nil && !ok:
			return 0 // a wrong answer, which f reported
		case err == nil:
			t.Logf("%s: served again %v after the kill (%d calls failed closed before, the slowest failure took %v)",
				name, time.Since(kill).Round(time.Millisecond), failures, slowest.Round(time.Millisecond))
			return time.Since(kill)
		case err != nil && !errors.Is(err, ErrUnavailable):
			t.Errorf("%s: %v, want an error wrapping ErrUnavailable", name, err)
			return 0
		case err != nil && took > failoverTimeout+500*time.Millisecond:
			t.Errorf("%s: failed after %v, beyond its timeout %v", name, took, failoverTimeout)
		}
		failures++
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("%s: not served again within %v of the kill", name, failoverBound)
	return 0
}

// probeSide probes the three stores of one side at once until each
// serves again, and checks what they read: the claim still refused (a
// claimed flow is never claimable again, not even during the failover),
// the grant, the task at version 2. It returns the times from the kill.
func probeSide(t *testing.T, name string, s *failoverSide, st *failoverState, kill time.Time) []time.Duration {
	t.Helper()
	checks := map[string]func(context.Context) (bool, error){
		"replay guard": func(ctx context.Context) (bool, error) {
			first, err := s.guard.Claim(ctx, st.claimID, time.Hour)
			if first {
				t.Errorf("%s: the claimed flow %s was claimed again", name, st.claimID)
			}
			return !first, err
		},
		"grants": func(ctx context.Context) (bool, error) {
			v, ok, err := s.grants.Grant(ctx, st.subject, "billing")
			if err == nil && (!ok || string(v) != "tok") {
				t.Errorf("%s: grant %q %v after the failover, want tok", name, v, ok)
				return false, nil
			}
			return true, err
		},
		"tasks": func(ctx context.Context) (bool, error) {
			r, err := s.tasks.Get(ctx, st.taskID)
			if err == nil && (r == nil || r.Version != 2) {
				t.Errorf("%s: task %v after the failover, want version 2", name, r)
				return false, nil
			}
			return true, err
		},
	}
	var mu sync.Mutex
	var times []time.Duration
	var wg sync.WaitGroup
	for store, f := range checks {
		wg.Go(func() {
			d := probe(t, name+" "+store, kill, f)
			mu.Lock()
			times = append(times, d)
			mu.Unlock()
		})
	}
	wg.Wait()
	return times
}

// TestStoresSurviveFailover: on a cluster of three masters with a replica
// each, two instances (two clients) write a replay claim, a grant and a
// task (version 2), all on one master, and one waits on the task; once
// the replica has it all, the master is killed (SIGKILL). During the
// failover every call fails closed (an error wrapping ErrUnavailable
// within the timeout; the claimed flow is never claimable); after it,
// the same stores on the same clients serve again by themselves, with
// the data written before; the Wait in progress, whose subscription was
// on the killed master, is woken by an update through the other client.
// Then what is not replicated is lost (failoverLoses).
func TestStoresSurviveFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("a Redis Cluster failover takes seconds")
	}
	cl := redistest.StartClusterWith(t, redistest.ClusterOptions{Replicas: 1, NodeTimeout: time.Second})
	ca, cb := clusterClient(t, cl), clusterClient(t, cl) // NewClient's, as the examples make them
	a, b := newFailoverSide(t, ca), newFailoverSide(t, cb)
	st := writeFailoverState(t, cl, a, b)
	ctx, cancel := context.WithTimeout(context.Background(), failoverBound+5*time.Second)
	defer cancel()
	woke := make(chan error, 1)
	go func() { woke <- a.tasks.Wait(ctx, st.taskID, 2) }()
	waitSubscribed(t, st.master, 1)
	cl.WaitReplicated()
	kill := time.Now()
	slots := cl.Kill(st.master)
	var wg sync.WaitGroup
	var served []time.Duration
	var mu sync.Mutex
	for name, side := range map[string]*failoverSide{"instance A": a, "instance B": b} {
		wg.Go(func() {
			d := probeSide(t, name, side, st, kill)
			mu.Lock()
			served = append(served, d...)
			mu.Unlock()
		})
	}
	defer wg.Wait() // the probes report to t: they end before it does, a failover that fails too
	promoted := cl.WaitFailover(slots, failoverBound)
	t.Logf("the cluster reports the failover done (%s serves the slots) %v after the kill", promoted.Addr, time.Since(kill).Round(time.Millisecond))
	wg.Wait()
	if t.Failed() {
		return
	}
	t.Logf("every store served again %v after the kill (the slowest of 6)", slices.Max(served).Round(time.Millisecond))
	waitSubscribed(t, promoted, 1)
	t.Logf("the Wait's subscription was made again on %s %v after the kill", promoted.Addr, time.Since(kill).Round(time.Millisecond))
	wakeAfterFailover(t, b, st, kill, woke)
	if first, err := b.guard.Claim(ctx, "flow-after", time.Hour); !first || err != nil {
		t.Fatalf("a new claim after the failover: %v %v", first, err)
	}
	failoverLoses(t, cl, a)
}

// waitSubscribed waits until s has n subscription connections.
func waitSubscribed(t *testing.T, s *redistest.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		list, err := s.Do("CLIENT", "LIST", "TYPE", "pubsub")
		if err == nil && strings.Count(list, "id=") == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d subscription connections, want %d (%v)", s.Addr, strings.Count(list, "id="), n, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wakeAfterFailover updates the task through b and expects the Wait in
// progress since before the kill (on a) to return.
func wakeAfterFailover(t *testing.T, b *failoverSide, st *failoverState, kill time.Time, woke chan error) {
	t.Helper()
	select {
	case err := <-woke:
		t.Fatalf("the Wait returned before the update: %v", err)
	default:
	}
	r, err := b.tasks.Update(context.Background(), st.taskID, func(r *backend.TaskRecord) error { r.StatusMessage = "after"; return nil })
	if r == nil || err != nil || r.Version != 3 {
		t.Fatalf("Update after the failover: %v %v", r, err)
	}
	updated := time.Now()
	select {
	case err := <-woke:
		if err != nil {
			t.Fatalf("the Wait in progress across the failover: %v", err)
		}
		t.Logf("the Wait in progress since before the kill was woken %v after the update, %v after the kill",
			time.Since(updated).Round(100*time.Microsecond), time.Since(kill).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		t.Fatal("the Wait in progress across the failover was not woken by the update through the other client")
	}
}

// failoverLoses: what a master acknowledged but had not sent to its
// replica is lost when the replica takes over. The replica's link is cut
// (CLIENT KILL TYPE master) and kept down (a wrong masterauth: its AUTH
// fails at every reconnection); a claim made then is acknowledged, the
// master killed, and after the failover the same flow is claimable again.
func failoverLoses(t *testing.T, cl *redistest.Cluster, a *failoverSide) {
	t.Helper()
	ctx := context.Background()
	var master, replica *redistest.Server
	var id string
	for i := 0; replica == nil; i++ {
		id = "lost-" + strconv.Itoa(i)
		master = cl.MasterOf(a.guard.o.Prefix + "replay:" + id)
		replica = cl.ReplicaOf(master)
	}
	cl.WaitReplicated()
	for _, cmd := range [][]string{{"CONFIG", "SET", "masterauth", "wrong"}, {"CLIENT", "KILL", "TYPE", "master"}} {
		if _, err := replica.Do(cmd...); err != nil {
			t.Fatal(err)
		}
	}
	cl.WaitUnreplicated(master)
	if first, err := a.guard.Claim(ctx, id, time.Hour); !first || err != nil {
		t.Fatalf("Claim: %v %v", first, err)
	}
	kill := time.Now()
	cl.WaitFailover(cl.Kill(master), failoverBound)
	for {
		first, err := a.guard.Claim(ctx, id, time.Hour)
		if err == nil {
			if !first {
				t.Fatal("the claim the replica never had survived the failover")
			}
			t.Logf("a claim acknowledged by the master but not replicated was lost: the flow was claimable again %v after the kill", time.Since(kill).Round(time.Millisecond))
			return
		}
		if time.Since(kill) > failoverBound {
			t.Fatalf("the replay guard does not serve after the second failover: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
