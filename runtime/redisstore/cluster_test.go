package redisstore

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/redis/go-redis/v9"

	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// The stores on a Redis Cluster of three masters. Every Lua script of the
// stores (claimScript, releaseScript, updateScript) and every other
// command touches one key, so no key needs a hash tag; a task's channel
// has its key's name, and a task's PUBLISH (inside updateScript) reaches
// the subscribers of every node (classic pub/sub is cluster-wide).

// clusterClient is a NewClient of c's URL, closed when t ends.
func clusterClient(t testing.TB, c *redistest.Cluster) *redis.ClusterClient {
	t.Helper()
	client, err := NewClient(c.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client.(*redis.ClusterClient)
}

// nodeOf returns the index in c.Nodes of the master that holds key.
func nodeOf(t testing.TB, c *redistest.Cluster, key string) int {
	t.Helper()
	slot, err := c.Nodes[0].Do("CLUSTER", "KEYSLOT", key)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := c.Nodes[0].Do("CLUSTER", "NODES")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := strconv.Atoi(strings.TrimPrefix(slot, ":"))
	for line := range strings.SplitSeq(strings.TrimSpace(nodes), "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || !strings.Contains(f[2], "master") {
			continue
		}
		for _, r := range f[8:] {
			lo, hi, _ := strings.Cut(r, "-")
			a, _ := strconv.Atoi(lo)
			b := a
			if hi != "" {
				b, _ = strconv.Atoi(hi)
			}
			if want >= a && want <= b {
				addr, _, _ := strings.Cut(f[1], "@")
				for i, s := range c.Nodes {
					if s.Addr == addr {
						return i
					}
				}
			}
		}
	}
	t.Fatalf("no master holds slot %d of %q", want, key)
	return -1
}

// TestStoresOnCluster: the replay guard, the grant store and the task
// store on a three-master cluster, through two clients (two instances):
// of 32 racing claims of one flow one is first; a sign-in flow is claimed
// once, done, and its grant read on the other client; the stores' keys
// spread over the three masters; a Wait whose subscription connection is
// on one node is woken by an update of a task whose key (and PUBLISH) is
// on another.
func TestStoresOnCluster(t *testing.T) {
	cl := redistest.StartCluster(t)
	a, b := clusterClient(t, cl), clusterClient(t, cl)
	ctx := context.Background()
	guards := []*ReplayGuard{NewReplayGuard(a, nil), NewReplayGuard(b, nil)}
	for round := range 10 {
		id := "flow-" + strconv.Itoa(round)
		var firsts atomic.Int32
		var wg sync.WaitGroup
		for i := range 32 {
			wg.Go(func() {
				first, err := guards[i%2].Claim(ctx, id, time.Minute)
				if err != nil {
					t.Error(err)
				}
				if first {
					firsts.Add(1)
				}
			})
		}
		wg.Wait()
		if n := firsts.Load(); n != 1 {
			t.Fatalf("%s: %d first claims, want 1", id, n)
		}
	}
	ga, _ := NewGrants(a, &Options{Keys: testKeys(t)})
	gb, _ := NewGrants(b, &Options{Keys: testKeys(t)})
	if ok, err := ga.ClaimFlow(ctx, "f", time.Minute); !ok || err != nil {
		t.Fatalf("ClaimFlow: %v %v", ok, err)
	}
	if ok, err := gb.ClaimFlow(ctx, "f", time.Minute); ok || err != nil {
		t.Fatalf("ClaimFlow again: %v %v", ok, err)
	}
	if err := gb.ReleaseFlow(ctx, "f"); err != nil {
		t.Fatal(err)
	}
	if ok, err := gb.ClaimFlow(ctx, "f", time.Minute); !ok || err != nil {
		t.Fatalf("ClaimFlow after release: %v %v", ok, err)
	}
	if err := gb.CompleteFlow(ctx, "f", "alice", time.Minute); err != nil {
		t.Fatal(err)
	}
	if sub, done, err := ga.FlowSubject(ctx, "f"); sub != "alice" || !done || err != nil {
		t.Fatalf("FlowSubject: %q %v %v", sub, done, err)
	}
	if err := ga.PutGrant(ctx, "alice", "billing", []byte("tok"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := gb.Grant(ctx, "alice", "billing"); !ok || err != nil || string(v) != "tok" {
		t.Fatalf("Grant: %q %v %v", v, ok, err)
	}
	used := map[int]bool{}
	for _, k := range []string{"replay:flow-", "flow:f"} {
		for i := range 10 {
			key := DefaultPrefix + k
			if k == "replay:flow-" {
				key += strconv.Itoa(i)
			}
			if n, err := a.Exists(ctx, key).Result(); err != nil || n != 1 {
				t.Fatalf("%s: exists %d %v", key, n, err)
			}
			used[nodeOf(t, cl, key)] = true
		}
	}
	if len(used) != 3 {
		t.Errorf("the stores' keys are on %d of the 3 masters", len(used))
	}
	crossNodeWake(t, cl, a, b)
}

// crossNodeWake: two tasks whose keys are on different masters; a store
// on a waits on the first (its subscription connection goes to that
// task's master), then on the second; an update of the second through b
// (its PUBLISH on the other master) wakes the Wait.
func crossNodeWake(t *testing.T, cl *redistest.Cluster, a, b redis.UniversalClient) {
	t.Helper()
	ctx := context.Background()
	sa, _ := NewTasks(a, &Options{Keys: testKeys(t)})
	sb, _ := NewTasks(b, &Options{Keys: testKeys(t)})
	first, second := "x0", ""
	for i := 1; second == ""; i++ {
		if id := "x" + strconv.Itoa(i); nodeOf(t, cl, sa.key(id)) != nodeOf(t, cl, sa.key(first)) {
			second = id
		}
	}
	for _, id := range []string{first, second} {
		if err := sb.Create(ctx, newTaskRecord(id, time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	hold, cancel := context.WithCancel(ctx)
	defer cancel()
	held := make(chan error, 1)
	go func() { held <- sa.Wait(hold, first, 1) }()
	here, there := nodeOf(t, cl, sa.key(first)), nodeOf(t, cl, sa.key(second))
	// The one subscription connection of sa is on the first task's
	// master, none on the second's: first with one channel, then with
	// both.
	awaitSubscriptions(t, cl, here, "sub=1")
	woke := make(chan error, 1)
	go func() { woke <- sa.Wait(ctx, second, 1) }()
	awaitSubscriptions(t, cl, here, "sub=2")
	if list, err := cl.Nodes[there].Do("CLIENT", "LIST", "TYPE", "pubsub"); err != nil || strings.Contains(list, "id=") {
		t.Fatalf("node %d, the second task's master, has a subscription connection: %q %v", there, list, err)
	}
	if r, err := sb.Update(ctx, second, func(r *backend.TaskRecord) error { r.StatusMessage = "answered"; return nil }); r == nil || err != nil {
		t.Fatalf("Update: %v %v", r, err)
	}
	select {
	case err := <-woke:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a Wait subscribed on another master than the task's was not woken by its update")
	}
	cancel()
	<-held
}

// TestClusterACLUser: on a cluster whose every node has the ACL user (and
// the default user off), every store works through
// redis://elicit:PASSWORD@NODE1?addr=NODE2&addr=NODE3; a wrong password is
// one line from ClientFromSettings, without the password.
func TestClusterACLUser(t *testing.T) {
	cl := redistest.StartCluster(t)
	const pass = "s3cret-Pass-4711"
	for _, node := range cl.Nodes {
		for _, cmd := range [][]string{
			{"ACL", "SETUSER", "elicit", "on", ">" + pass, "~elicitgen:*", "&elicitgen:*", "+@all"},
			{"ACL", "SETUSER", "default", "off"},
		} {
			if _, err := node.Do(cmd...); err != nil {
				t.Fatal(err)
			}
		}
		node.Auth("elicit", pass)
	}
	withUser := func(p string) string { return strings.Replace(cl.URL, "redis://", "redis://elicit:"+p+"@", 1) }
	clusterStores(t, withUser(pass))
	c, err := ClientFromSettings(withUser("wrong-"+pass), quiet)
	if err == nil {
		c.Close()
		t.Fatal("a wrong password: no error")
	}
	if msg := err.Error(); strings.Contains(msg, pass) || strings.Contains(msg, "\n") || !strings.Contains(msg, "user name and password") {
		t.Fatalf("a wrong password: %q", msg)
	}
}

// clusterStores connects to the cluster url with ClientFromSettings,
// checks that the client is a cluster client, and runs every store on it.
func clusterStores(t *testing.T, url string) redis.UniversalClient {
	t.Helper()
	c, err := ClientFromSettings(url, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, ok := c.(*redis.ClusterClient); !ok {
		t.Fatalf("%T, want a cluster client", c)
	}
	exerciseStores(t, c)
	return c
}

// TestClusterTLS: on a three-master cluster that speaks TLS only, to
// clients and between its nodes (--tls-cluster yes), and requires a client
// certificate, every store works through
// rediss://NODE1?addr=NODE2&addr=NODE3 with CAEnv, CertEnv and KeyEnv
// naming the test's CA and client certificate, and the stores' keys
// spread over the masters; without the certificate, or without the CA,
// ClientFromSettings refuses the cluster with the one line of a single
// server.
func TestClusterTLS(t *testing.T) {
	cl := redistest.StartClusterWith(t, redistest.ClusterOptions{TLS: true})
	if !strings.HasPrefix(cl.URL, "rediss://") {
		t.Fatalf("URL %s, want rediss://", cl.URL)
	}
	t.Setenv(CAEnv, cl.CAFile)
	setCert(t, cl.ClientCertFile, cl.ClientKeyFile)
	c := clusterStores(t, cl.URL)
	masters := map[int]bool{}
	for _, key := range []string{"elicitgen:a", "elicitgen:b", "elicitgen:c", "elicitgen:d", "elicitgen:e", "elicitgen:f"} {
		if err := c.Set(context.Background(), key, "x", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		masters[nodeOf(t, cl, key)] = true
	}
	if len(masters) < 2 {
		t.Errorf("six keys on %d master(s), want them spread", len(masters))
	}
	for name, env := range map[string]struct{ ca, cert, key, want string }{
		"no certificate": {cl.CAFile, "", "", "requires a client certificate"},
		"no CA":          {"", cl.ClientCertFile, cl.ClientKeyFile, "TLS certificate does not verify"},
	} {
		t.Setenv(CAEnv, env.ca)
		setCert(t, env.cert, env.key)
		c, err := ClientFromSettings(cl.URL, quiet)
		if err == nil {
			c.Close()
			t.Errorf("%s: no error", name)
		} else if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, env.want) {
			t.Errorf("%s: %q: want one line saying %q", name, msg, env.want)
		}
	}
}

// awaitSubscriptions waits until node's one subscription connection
// reports want (as "sub=2"); it fails after 10 s, or at once when the
// node has more than one.
func awaitSubscriptions(t *testing.T, cl *redistest.Cluster, node int, want string) {
	t.Helper()
	var list string
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(20 * time.Millisecond) {
		var err error
		if list, err = cl.Nodes[node].Do("CLIENT", "LIST", "TYPE", "pubsub"); err != nil {
			t.Fatal(err)
		}
		switch n := strings.Count(list, "id="); {
		case n > 1:
			t.Fatalf("node %d: %d subscription connections, want 1: %q", node, n, list)
		case n == 1 && strings.Contains(list, " "+want+" "):
			return
		}
	}
	t.Fatalf("node %d: no subscription connection with %s in 10 s: %q", node, want, list)
}

// TestSubscriptionOnChannelsMaster: on a cluster, a store's subscription
// connection is made by its first SUBSCRIBE, on the master of the
// channel's slot: an opened hub makes none before it (its reader, whose
// first Receive would make one on a random node, has not started), and 20
// Waits on tasks of all three masters, one after the other, each have
// their connection on their channel's master.
func TestSubscriptionOnChannelsMaster(t *testing.T) {
	cl := redistest.StartCluster(t)
	c := clusterClient(t, cl)
	s, _ := NewTasks(c, &Options{Keys: testKeys(t)})
	ctx := context.Background()
	count := func() (on []int) {
		for i, n := range cl.Nodes {
			list, err := n.Do("CLIENT", "LIST", "TYPE", "pubsub")
			if err != nil {
				t.Fatal(err)
			}
			for range strings.Count(list, "id=") {
				on = append(on, i)
			}
		}
		return on
	}
	// The connection is not made before the first SUBSCRIBE: an opened
	// hub, with time for a reader to run, has none.
	clients := func() (n int) {
		for _, node := range cl.Nodes {
			list, err := node.Do("CLIENT", "LIST")
			if err != nil {
				t.Fatal(err)
			}
			n += strings.Count(list, "id=")
		}
		return n
	}
	before := clients()
	h := &s.hub
	h.mu.Lock()
	startReader := h.open()
	ps, stop, done := h.ps, h.stop, h.done
	h.mu.Unlock()
	time.Sleep(200 * time.Millisecond)
	early := clients() - before
	if startReader != nil {
		startReader()
	}
	close(stop)
	ps.Close()
	<-done
	h.mu.Lock()
	h.ps, h.chans, h.pings = nil, nil, nil
	h.mu.Unlock()
	if early != 0 {
		t.Fatalf("an opened hub made %d connections before any SUBSCRIBE", early)
	}
	for start := time.Now(); len(count()) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatal("the opened hub's connection stays open")
		}
	}
	for i := range 20 {
		id := "m" + strconv.Itoa(i)
		if err := s.Create(ctx, newTaskRecord(id, time.Hour)); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- s.Wait(wctx, id, 1) }()
		var on []int
		for start := time.Now(); len(on) == 0 && time.Since(start) < 10*time.Second; time.Sleep(10 * time.Millisecond) {
			on = count()
		}
		cancel()
		<-done
		if want := nodeOf(t, cl, s.key(id)); len(on) != 1 || on[0] != want {
			t.Fatalf("Wait %d: subscription connections on nodes %v, want one on %d, the channel's master", i, on, want)
		}
		for start := time.Now(); len(count()) > 0; time.Sleep(10 * time.Millisecond) {
			if time.Since(start) > 10*time.Second {
				t.Fatal("the subscription connection stays open after the last Wait")
			}
		}
	}
}
