package redisstore

import (
	"bytes"
	"context"
	"io"
	"net"
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

// lossyDialer makes connections to Redis that lose one reply on demand:
// armed with a key, the next script call (EVALSHA or EVAL) naming that key
// goes through, Redis runs it, and when its reply (an integer) arrives the
// connection is closed and the client reads io.EOF instead, as when the
// network fails between Redis's answer and the client. go-redis then
// retries the command on a new connection.
type lossyDialer struct {
	mu    sync.Mutex
	armed string // the key whose next script reply is lost; "" when disarmed
	lost  atomic.Int32
}

// arm makes the next script call on key lose its reply.
func (d *lossyDialer) arm(key string) {
	d.mu.Lock()
	d.armed = key
	d.mu.Unlock()
}

func (d *lossyDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &lossyConn{Conn: c, d: d}, nil
}

// lossyConn is one connection of a lossyDialer.
type lossyConn struct {
	net.Conn
	d       *lossyDialer
	pending bool // an armed command was written; its reply is to be lost
}

func (c *lossyConn) Write(p []byte) (int, error) {
	c.d.mu.Lock()
	if c.d.armed != "" && bytes.Contains(p, []byte(c.d.armed)) && bytes.Contains(bytes.ToLower(p), []byte("eval")) {
		c.pending = true // EVALSHA or EVAL
	}
	c.d.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *lossyConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if !c.pending || n == 0 {
		return n, err
	}
	c.pending = false
	if p[0] != ':' { // not the script's result (a NOSCRIPT error, say): pass it on
		return n, err
	}
	// Redis ran the script and answered: lose the answer.
	c.d.mu.Lock()
	c.d.armed = ""
	c.d.mu.Unlock()
	c.d.lost.Add(1)
	c.Conn.Close()
	return 0, io.EOF
}

// lossyClient is a client of srv made as NewClient makes it (one retry),
// whose connections come from d.
func lossyClient(t *testing.T, srv *redistest.Server, d *lossyDialer) *redis.Client {
	t.Helper()
	base, err := NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	o := *base.(*redis.Client).Options()
	base.Close()
	if o.MaxRetries < 1 {
		t.Fatalf("NewClient's MaxRetries is %d: the stores count on one retry", o.MaxRetries)
	}
	o.Dialer = d.dial
	c := redis.NewClient(&o)
	t.Cleanup(func() { c.Close() })
	return c
}

// commandCalls returns the calls of each command since the last CONFIG
// RESETSTAT, from INFO commandstats (commands a script runs included).
func commandCalls(t *testing.T, srv *redistest.Server) map[string]int {
	t.Helper()
	info, err := srv.Do("INFO", "commandstats")
	if err != nil {
		t.Fatal(err)
	}
	calls := make(map[string]int)
	for line := range strings.Lines(info) {
		// cmdstat_evalsha:calls=2,usec=...
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		for field := range strings.SplitSeq(rest, ",") {
			if v, ok := strings.CutPrefix(field, "calls="); ok {
				calls[strings.TrimPrefix(name, "cmdstat_")], _ = strconv.Atoi(v)
			}
		}
	}
	return calls
}

// resetStats zeroes Redis's command counts.
func resetStats(t *testing.T, srv *redistest.Server) {
	t.Helper()
	if _, err := srv.Do("CONFIG", "RESETSTAT"); err != nil {
		t.Fatal(err)
	}
}

// TestClaimRetriedAfterLostReply: Redis runs a replay claim, its reply is
// lost and go-redis retries it on a new connection; the retry finds the
// claim's own token and reports first (Redis ran the script twice and
// wrote once). Another claim of the id is not first. A task's Create,
// which claims its key the same way, succeeds likewise.
func TestClaimRetriedAfterLostReply(t *testing.T) {
	srv := redistest.Start(t)
	d := &lossyDialer{}
	c := lossyClient(t, srv, d)
	ctx := context.Background()
	g := NewReplayGuard(c, nil)
	// Redis has the script from now on: every run below is one EVALSHA.
	if first, err := g.Claim(ctx, "warm-up", time.Minute); !first || err != nil {
		t.Fatalf("warm-up claim: %v %v", first, err)
	}

	resetStats(t, srv)
	d.arm(DefaultPrefix + "replay:lost-reply")
	first, err := g.Claim(ctx, "lost-reply", time.Minute)
	if err != nil || !first {
		t.Fatalf("claim whose first reply was lost: first=%v err=%v, want first", first, err)
	}
	if n := d.lost.Load(); n != 1 {
		t.Fatalf("%d replies lost, want 1: the retry path did not run", n)
	}
	calls := commandCalls(t, srv)
	if calls["evalsha"] != 2 || calls["set"] != 1 {
		t.Fatalf("Redis ran the claim script %d times and SET %d times, want 2 and 1 (commandstats %v)", calls["evalsha"], calls["set"], calls)
	}
	if first, err := NewReplayGuard(newClient(t, srv), nil).Claim(ctx, "lost-reply", time.Minute); err != nil || first {
		t.Fatalf("another claim of the id: first=%v err=%v, want not first", first, err)
	}

	// Create: the same set-if-absent on the task's key.
	s, err := NewTasks(c, &Options{Keys: testKeys(t)})
	if err != nil {
		t.Fatal(err)
	}
	resetStats(t, srv)
	d.arm(s.key("created"))
	if err := s.Create(ctx, newTaskRecord("created", time.Hour)); err != nil {
		t.Fatalf("create whose first reply was lost: %v", err)
	}
	if n := d.lost.Load(); n != 2 {
		t.Fatalf("%d replies lost, want 2", n)
	}
	if calls := commandCalls(t, srv); calls["evalsha"] != 2 || calls["set"] != 1 {
		t.Fatalf("create: the script ran %d times, SET %d times, want 2 and 1", calls["evalsha"], calls["set"])
	}
	if rec, err := s.Get(ctx, "created"); err != nil || rec == nil || rec.Version != 1 {
		t.Fatalf("created task: %+v %v", rec, err)
	}
}

// TestUpdateRetriedAfterLostReply: Redis runs a task Update's
// compare-and-set, its reply is lost and go-redis retries it; the retry
// finds the value it wrote and reports success. The Update succeeds with
// the change applied once: the Version bumped once, one write, one
// message published.
func TestUpdateRetriedAfterLostReply(t *testing.T) {
	srv := redistest.Start(t)
	d := &lossyDialer{}
	s, err := NewTasks(lossyClient(t, srv, d), &Options{Keys: testKeys(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Create(ctx, newTaskRecord("t", time.Hour)); err != nil {
		t.Fatal(err)
	}
	// Redis has the update script from now on.
	if _, err := s.Update(ctx, "t", func(*backend.TaskRecord) error { return nil }); err != nil {
		t.Fatal(err)
	}

	resetStats(t, srv)
	d.arm(s.key("t"))
	var changes atomic.Int32
	rec, err := s.Update(ctx, "t", func(r *backend.TaskRecord) error {
		changes.Add(1)
		r.StatusMessage += "x"
		return nil
	})
	if err != nil || rec == nil {
		t.Fatalf("update whose first reply was lost: %+v %v", rec, err)
	}
	if n := d.lost.Load(); n != 1 {
		t.Fatalf("%d replies lost, want 1: the retry path did not run", n)
	}
	calls := commandCalls(t, srv)
	if calls["evalsha"] != 2 || calls["set"] != 1 || calls["publish"] != 1 {
		t.Fatalf("Redis ran the update script %d times, SET %d and PUBLISH %d times, want 2, 1 and 1 (commandstats %v)",
			calls["evalsha"], calls["set"], calls["publish"], calls)
	}
	if rec.Version != 3 || changes.Load() != 1 {
		t.Fatalf("update returned version %d after %d changes, want 3 after 1", rec.Version, changes.Load())
	}
	got, err := newTasks(t, srv, nil).Get(ctx, "t")
	if err != nil || got == nil || got.Version != 3 || got.StatusMessage != "x" {
		t.Fatalf("stored record: %+v %v, want version 3 changed once", got, err)
	}
}
