package redisstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// taskStoreKinds are the TaskStores the contract runs against. Each
// starts what its stores share (once per kind) and returns the maker of
// two stores that share their tasks, as two instances of one server do:
// the same MemoryTaskStore twice (one process), or two Tasks on two
// clients of one redis-server, or of a three-master Redis Cluster (each
// pair under a prefix of its own).
var taskStoreKinds = map[string]func(t *testing.T) func(t *testing.T) (a, b backend.TaskStore){
	"memory": func(*testing.T) func(*testing.T) (backend.TaskStore, backend.TaskStore) {
		return func(t *testing.T) (backend.TaskStore, backend.TaskStore) {
			s := &backend.MemoryTaskStore{}
			return s, s
		}
	},
	"redis": func(t *testing.T) func(*testing.T) (backend.TaskStore, backend.TaskStore) {
		srv := redistest.Start(t)
		return func(t *testing.T) (backend.TaskStore, backend.TaskStore) {
			o := &Options{Prefix: t.Name() + ":"}
			return newTasks(t, srv, o), newTasks(t, srv, o)
		}
	},
	"cluster": func(t *testing.T) func(*testing.T) (backend.TaskStore, backend.TaskStore) {
		cl := redistest.StartCluster(t)
		return func(t *testing.T) (backend.TaskStore, backend.TaskStore) {
			o := &Options{Prefix: t.Name() + ":", Keys: testKeys(t)}
			a, _ := NewTasks(clusterClient(t, cl), o)
			b, _ := NewTasks(clusterClient(t, cl), o)
			return a, b
		}
	},
}

// newTasks is a Tasks on a new client of srv, with testKeys unless o has
// Keys.
func newTasks(t testing.TB, srv *redistest.Server, o *Options) *Tasks {
	t.Helper()
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.Keys == nil {
		opts.Keys = testKeys(t)
	}
	s, err := NewTasks(newClient(t, srv), &opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newTaskRecord is a working task of id expiring in ttl.
func newTaskRecord(id string, ttl time.Duration) *backend.TaskRecord {
	now := time.Now()
	return &backend.TaskRecord{
		Format: backend.TaskRecordFormat, ID: id, Principal: "alice", Tool: "report",
		Status: backend.TaskWorking, CreatedAt: now, UpdatedAt: now, Expires: now.Add(ttl),
		PollInterval: time.Second, Version: 7, // Create makes it 1
	}
}

// counter is the number an update of the racing test keeps in
// StatusMessage.
func counter(rec *backend.TaskRecord) int {
	n, _ := strconv.Atoi(rec.StatusMessage)
	return n
}

// TestTaskStoreContract runs the same checks against the in-memory store
// and the Redis store, on one server and on a cluster: create, get, update, version, expiry, duplicate and
// unknown ids; a Wait woken by an update through the other instance within
// 200 ms; 8 goroutines × 50 racing updates losing none; Wait ending with
// its context.
func TestTaskStoreContract(t *testing.T) {
	for kind, start := range taskStoreKinds {
		t.Run(kind, func(t *testing.T) {
			stores := start(t)
			t.Run("CreateGetUpdate", func(t *testing.T) {
				a, b := stores(t)
				ctx := context.Background()
				rec := newTaskRecord("t1", time.Hour)
				rec.InputRequests = map[string]json.RawMessage{"salaries": json.RawMessage(`{"method":"elicitation/create"}`)}
				if err := a.Create(ctx, rec); err != nil {
					t.Fatal(err)
				}
				if rec.Version != 7 || len(rec.InputRequests) != 1 {
					t.Fatal("Create changed the caller's record")
				}
				got, err := b.Get(ctx, "t1")
				if err != nil || got == nil {
					t.Fatalf("Get on the other instance: %v %v", got, err)
				}
				if got.Version != 1 || got.Principal != "alice" || got.Tool != "report" || got.Status != backend.TaskWorking ||
					!got.Expires.Equal(rec.Expires) || !got.CreatedAt.Equal(rec.CreatedAt) || got.PollInterval != time.Second ||
					string(got.InputRequests["salaries"]) != `{"method":"elicitation/create"}` || got.Format != backend.TaskRecordFormat {
					t.Fatalf("Get: %+v", got)
				}
				got.InputRequests["x"] = nil // a copy: the store does not change
				before := time.Now()
				calls := 0
				upd, err := b.Update(ctx, "t1", func(r *backend.TaskRecord) error {
					calls++
					if r.Version != 1 {
						t.Errorf("change sees version %d", r.Version)
					}
					r.Status = backend.TaskInputRequired
					r.Answers = map[string]json.RawMessage{"salaries": json.RawMessage(`{"action":"accept"}`)}
					delete(r.InputRequests, "salaries")
					r.ID = "other" // the store keeps the id
					return nil
				})
				if err != nil || upd == nil || calls != 1 {
					t.Fatalf("Update: %v %v, change called %d times", upd, err, calls)
				}
				if upd.Version != 2 || upd.ID != "t1" || upd.UpdatedAt.Before(before) || upd.Status != backend.TaskInputRequired {
					t.Fatalf("Update returned %+v", upd)
				}
				got, _ = a.Get(ctx, "t1")
				if got.Version != 2 || got.Status != backend.TaskInputRequired || len(got.InputRequests) != 0 ||
					string(got.Answers["salaries"]) != `{"action":"accept"}` || !got.UpdatedAt.Equal(upd.UpdatedAt) {
					t.Fatalf("after Update: %+v", got)
				}
				// An error of change aborts, returned as is.
				errNo := errors.New("no")
				if r, err := a.Update(ctx, "t1", func(r *backend.TaskRecord) error { r.Status = backend.TaskFailed; return errNo }); r != nil || err != errNo {
					t.Fatalf("Update with an error: %v %v", r, err)
				}
				if got, _ := b.Get(ctx, "t1"); got.Version != 2 || got.Status != backend.TaskInputRequired {
					t.Fatalf("aborted update stored: %+v", got)
				}
				// A duplicate id is an error, and changes nothing.
				if err := b.Create(ctx, newTaskRecord("t1", time.Hour)); err == nil {
					t.Fatal("duplicate id created")
				}
				if got, _ := a.Get(ctx, "t1"); got.Version != 2 {
					t.Fatalf("duplicate create overwrote: %+v", got)
				}
			})
			t.Run("Unknown", func(t *testing.T) {
				a, _ := stores(t)
				ctx := context.Background()
				if r, err := a.Get(ctx, "nope"); r != nil || err != nil {
					t.Fatalf("Get unknown: %v %v", r, err)
				}
				if r, err := a.Update(ctx, "nope", func(*backend.TaskRecord) error { t.Error("change called"); return nil }); r != nil || err != nil {
					t.Fatalf("Update unknown: %v %v", r, err)
				}
				if err := a.Wait(ctx, "nope", 0); err != nil {
					t.Fatalf("Wait unknown: %v", err)
				}
			})
			t.Run("Expiry", func(t *testing.T) {
				a, b := stores(t)
				ctx := context.Background()
				if err := a.Create(ctx, newTaskRecord("short", 300*time.Millisecond)); err != nil {
					t.Fatal(err)
				}
				if r, _ := b.Get(ctx, "short"); r == nil {
					t.Fatal("not there before expiry")
				}
				// Wait returns at the expiry.
				start := time.Now()
				if err := b.Wait(ctx, "short", 1); err != nil {
					t.Fatal(err)
				}
				if took := time.Since(start); took < 150*time.Millisecond || took > 2*time.Second {
					t.Fatalf("Wait returned after %v, want at the expiry (about 300ms)", took)
				}
				time.Sleep(100 * time.Millisecond)
				if r, err := b.Get(ctx, "short"); r != nil || err != nil {
					t.Fatalf("Get after expiry: %v %v", r, err)
				}
				if r, err := a.Update(ctx, "short", func(*backend.TaskRecord) error { t.Error("change called"); return nil }); r != nil || err != nil {
					t.Fatalf("Update after expiry: %v %v", r, err)
				}
				// An expired id can be created again.
				if err := b.Create(ctx, newTaskRecord("short", time.Minute)); err != nil {
					t.Fatalf("re-create after expiry: %v", err)
				}
			})
			t.Run("WaitWakesOnOtherInstance", func(t *testing.T) {
				a, b := stores(t)
				ctx := context.Background()
				if err := a.Create(ctx, newTaskRecord("w", time.Hour)); err != nil {
					t.Fatal(err)
				}
				// A version already passed returns at once.
				if err := a.Wait(ctx, "w", 0); err != nil {
					t.Fatal(err)
				}
				var worst time.Duration
				for round := range 10 {
					version := uint64(1 + round)
					woke := make(chan time.Time, 1)
					go func() {
						if err := a.Wait(ctx, "w", version); err != nil {
							t.Error(err)
						}
						woke <- time.Now()
					}()
					time.Sleep(30 * time.Millisecond) // the Wait is waiting
					select {
					case <-woke:
						t.Fatal("Wait returned before the update")
					default:
					}
					sent := time.Now()
					if r, err := b.Update(ctx, "w", func(r *backend.TaskRecord) error { r.StatusMessage = "answered"; return nil }); err != nil || r == nil {
						t.Fatalf("Update: %v %v", r, err)
					}
					select {
					case at := <-woke:
						worst = max(worst, at.Sub(sent))
					case <-time.After(200 * time.Millisecond):
						t.Fatalf("round %d: Wait not woken within 200ms of the update on the other instance", round)
					}
				}
				t.Logf("%s: slowest wake-up after an update on the other instance: %v", kind, worst)
			})
			t.Run("RacingUpdates", func(t *testing.T) {
				a, b := stores(t)
				ctx := context.Background()
				if err := a.Create(ctx, newTaskRecord("race", time.Hour)); err != nil {
					t.Fatal(err)
				}
				var calls atomic.Int64
				var wg sync.WaitGroup
				for g := range 8 {
					s := []backend.TaskStore{a, b}[g%2]
					wg.Go(func() {
						for range 50 {
							r, err := s.Update(ctx, "race", func(r *backend.TaskRecord) error {
								calls.Add(1)
								r.StatusMessage = strconv.Itoa(counter(r) + 1)
								return nil
							})
							if err != nil || r == nil {
								t.Errorf("Update: %v %v", r, err)
								return
							}
						}
					})
				}
				wg.Wait()
				r, err := b.Get(ctx, "race")
				if err != nil || counter(r) != 400 || r.Version != 401 {
					t.Fatalf("after 400 racing updates: counter %d, version %d, %v", counter(r), r.Version, err)
				}
				t.Logf("%s: change called %d times for 400 updates", kind, calls.Load())
			})
			t.Run("WaitEndsWithContext", func(t *testing.T) {
				a, _ := stores(t)
				if err := a.Create(context.Background(), newTaskRecord("c", time.Hour)); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				defer cancel()
				start := time.Now()
				err := a.Wait(ctx, "c", 1)
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("Wait: %v, want the context's error", err)
				}
				if took := time.Since(start); took > time.Second {
					t.Fatalf("Wait returned %v after its context ended", took)
				}
				ctx, cancel = context.WithCancel(context.Background())
				cancel()
				if err := a.Wait(ctx, "c", 1); !errors.Is(err, context.Canceled) {
					t.Fatalf("Wait with an ended context: %v", err)
				}
			})
			t.Run("LargeRecord", func(t *testing.T) {
				a, b := stores(t)
				ctx := context.Background()
				if err := a.Create(ctx, newTaskRecord("big", time.Hour)); err != nil {
					t.Fatal(err)
				}
				result := `{"content":[{"type":"text","text":"` + strings.Repeat("x", 3*elicitrt.MaxRecordLen) + `"}]}`
				if _, err := a.Update(ctx, "big", func(r *backend.TaskRecord) error {
					r.Status, r.Result = backend.TaskCompleted, json.RawMessage(result)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if r, err := b.Get(ctx, "big"); err != nil || r == nil || string(r.Result) != result {
					t.Fatalf("large result: %v", err)
				}
			})
		})
	}
}

// TestTasksSealedAtRest: the record is under PREFIX task:ID, "v1:" and
// sealed (no answer in clear), expiring at the record's Expires; a value
// copied to another id, or read with another key ring, is a gone task.
func TestTasksSealedAtRest(t *testing.T) {
	srv := redistest.Start(t)
	s := newTasks(t, srv, &Options{Prefix: "app:"})
	ctx := context.Background()
	rec := newTaskRecord("sealed", time.Hour)
	if err := s.Create(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, "sealed", func(r *backend.TaskRecord) error {
		r.Answers = map[string]json.RawMessage{"pin": json.RawMessage(`{"action":"accept","content":{"pin":"SECRET-4711"}}`)}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	raw := newClient(t, srv)
	keys := raw.Keys(ctx, "*").Val()
	if len(keys) != 1 || keys[0] != "app:task:sealed" {
		t.Fatalf("keys %q", keys)
	}
	v := raw.Get(ctx, "app:task:sealed").Val()
	stored := sealedBytes(t, v)
	for _, clear := range []string{"SECRET-4711", "alice", "report"} {
		if bytes.Contains(stored, []byte(clear)) {
			t.Fatalf("stored %q shows %q: want it sealed", v, clear)
		}
	}
	if ttl := raw.PTTL(ctx, "app:task:sealed").Val(); ttl < time.Hour-time.Minute || ttl > time.Hour {
		t.Fatalf("TTL %v, want the record's (an hour)", ttl)
	}
	if at := time.UnixMilli(raw.PExpireTime(ctx, "app:task:sealed").Val().Milliseconds()); at.Sub(rec.Expires).Abs() > time.Millisecond {
		t.Fatalf("expires at %v, want %v", at, rec.Expires)
	}
	if r, _ := s.Get(ctx, "sealed"); r == nil || !strings.Contains(string(r.Answers["pin"]), "SECRET-4711") {
		t.Fatalf("answer not read back: %+v", r)
	}
	raw.Set(ctx, "app:task:copied", v, time.Minute)
	if r, err := newTasks(t, srv, &Options{Prefix: "app:", Logger: quiet}).Get(ctx, "copied"); r != nil || err != nil {
		t.Fatalf("a record copied to another id opened: %v %v", r, err)
	}
	other := newTasks(t, srv, &Options{Prefix: "app:", Keys: elicitrt.RandomKeyring(), Logger: quiet})
	if r, err := other.Get(ctx, "sealed"); r != nil || err != nil {
		t.Fatalf("opened under other keys: %v %v", r, err)
	}
	if _, err := NewTasks(raw, nil); err == nil {
		t.Fatal("NewTasks without keys")
	}
}

// TestTasksUnknownFormat: a record of a later format is an error (Get,
// Update), never taken as gone.
func TestTasksUnknownFormat(t *testing.T) {
	srv := redistest.Start(t)
	s := newTasks(t, srv, &Options{Logger: quiet})
	ctx := context.Background()
	c := newClient(t, srv)
	c.Set(ctx, DefaultPrefix+"task:v2", "v2:whatever", time.Minute)
	if _, err := s.Get(ctx, "v2"); err == nil || !strings.Contains(err.Error(), "format v2") {
		t.Fatalf("Get of v2: %v", err)
	}
	if _, err := s.Update(ctx, "v2", func(*backend.TaskRecord) error { t.Error("change called"); return nil }); err == nil {
		t.Fatal("Update of v2: no error")
	}
	// A "v1:" value whose record says format 2.
	rec := newTaskRecord("f2", time.Hour)
	rec.Format = backend.TaskRecordFormat + 1
	v, err := s.seal(rec)
	if err != nil {
		t.Fatal(err)
	}
	c.Set(ctx, DefaultPrefix+"task:f2", v, time.Minute)
	if _, err := s.Get(ctx, "f2"); err == nil {
		t.Fatal("Get of a format 2 record: no error")
	}
}

// TestTasksFailClosed: with Redis killed, every call returns an error
// wrapping ErrUnavailable within the timeout, nothing panics; a Wait in
// progress when Redis dies returns once it is back (its subscription is
// made again); after the restart every call works on the same stores.
func TestTasksFailClosed(t *testing.T) {
	srv := redistest.Start(t)
	o := &Options{Timeout: 300 * time.Millisecond, Logger: quiet}
	a, b := newTasks(t, srv, o), newTasks(t, srv, o)
	ctx := context.Background()
	if err := a.Create(ctx, newTaskRecord("before", time.Hour)); err != nil {
		t.Fatal(err)
	}
	waiting := make(chan error, 1)
	go func() { waiting <- a.Wait(ctx, "before", 1) }()
	time.Sleep(50 * time.Millisecond)
	srv.Stop()
	calls := map[string]func() error{
		"Create": func() error { return b.Create(ctx, newTaskRecord("during", time.Hour)) },
		"Get": func() error {
			r, err := b.Get(ctx, "before")
			if r != nil {
				t.Error("Get read a task while Redis was down")
			}
			return err
		},
		"Update": func() error {
			r, err := b.Update(ctx, "before", func(*backend.TaskRecord) error { return nil })
			if r != nil {
				t.Error("updated while Redis was down")
			}
			return err
		},
		"Wait": func() error { return b.Wait(ctx, "before", 1) },
	}
	for name, f := range calls {
		start := time.Now()
		err := f()
		if !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s with Redis down: %v, want ErrUnavailable", name, err)
			continue
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s took %v with a 300ms timeout", name, took)
		}
		if msg := err.Error(); strings.Contains(msg, srv.Addr) || strings.Contains(msg, "refused") {
			t.Errorf("%s: message %q shows the cause", name, msg)
		}
	}
	select {
	case err := <-waiting:
		t.Fatalf("the Wait in progress returned while Redis was down: %v", err)
	default:
	}
	srv.Restart() // empty: no persistence
	select {
	case err := <-waiting:
		if err != nil {
			t.Fatalf("the Wait in progress, after the restart: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the Wait in progress did not return after the restart")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := b.Create(ctx, newTaskRecord("after", time.Hour))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Create did not work again after the restart: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	woke := make(chan error, 1)
	go func() { woke <- a.Wait(ctx, "after", 1) }()
	time.Sleep(100 * time.Millisecond)
	if r, err := b.Update(ctx, "after", func(*backend.TaskRecord) error { return nil }); r == nil || err != nil {
		t.Fatalf("Update after the restart: %v %v", r, err)
	}
	select {
	case err := <-woke:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Wait after the restart not woken by an update")
	}
}

// TestTasksWaitsShareOneConnection: 40 Waits on 20 tasks of one store use
// one subscription connection; once they have returned, no goroutine and
// no subscription is left.
func TestTasksWaitsShareOneConnection(t *testing.T) {
	srv := redistest.Start(t)
	a, b := newTasks(t, srv, nil), newTasks(t, srv, nil)
	ctx := context.Background()
	for i := range 20 {
		if err := b.Create(ctx, newTaskRecord("t"+strconv.Itoa(i), time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	raw := newClient(t, srv)
	raw.Ping(ctx)
	baseline := runtime.NumGoroutine()
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			if err := a.Wait(ctx, "t"+strconv.Itoa(i%20), 1); err != nil {
				t.Error(err)
			}
		})
	}
	deadline := time.Now().Add(5 * time.Second)
	for raw.PubSubNumSub(ctx, DefaultPrefix+"task:t19").Val()[DefaultPrefix+"task:t19"] != 1 || len(raw.PubSubChannels(ctx, "*").Val()) != 20 {
		if time.Now().After(deadline) {
			t.Fatalf("subscriptions: %q", raw.PubSubChannels(ctx, "*").Val())
		}
		time.Sleep(10 * time.Millisecond)
	}
	list := raw.Do(ctx, "CLIENT", "LIST", "TYPE", "pubsub").String()
	if n := strings.Count(list, "id="); n != 1 {
		t.Fatalf("%d subscription connections for 40 Waits, want 1: %s", n, list)
	}
	for i := range 20 {
		if _, err := b.Update(ctx, "t"+strconv.Itoa(i), func(*backend.TaskRecord) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	for deadline := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > baseline || len(raw.PubSubChannels(ctx, "*").Val()) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after the Waits: %d goroutines (baseline %d), channels %q", runtime.NumGoroutine(), baseline, raw.PubSubChannels(ctx, "*").Val())
		}
	}
}

// TestTasksPastExpiry: a task created with an expiry already past is
// gone at once, and its key expires (never kept without a TTL).
func TestTasksPastExpiry(t *testing.T) {
	srv := redistest.Start(t)
	s := newTasks(t, srv, nil)
	ctx := context.Background()
	if err := s.Create(ctx, newTaskRecord("past", -time.Second)); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Get(ctx, "past"); r != nil || err != nil {
		t.Fatalf("Get of a task created expired: %v %v", r, err)
	}
	time.Sleep(10 * time.Millisecond)
	if n := newClient(t, srv).Exists(ctx, DefaultPrefix+"task:past").Val(); n != 0 {
		t.Fatal("the key of a task created expired is still there")
	}
}

// TestTasksWaitChurn: Waits that come and go on a few tasks (short
// contexts, joining and leaving subscriptions, the connection closed and
// opened again) while the tasks are updated: every Wait returns nil or its
// context's error (one Wait's context ending never fails the subscription
// it shares), and nothing is left after.
func TestTasksWaitChurn(t *testing.T) {
	srv := redistest.Start(t)
	a, b := newTasks(t, srv, nil), newTasks(t, srv, nil)
	ctx := context.Background()
	for i := range 3 {
		if err := b.Create(ctx, newTaskRecord("c"+strconv.Itoa(i), time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	raw := newClient(t, srv)
	raw.Ping(ctx)
	baseline := runtime.NumGoroutine()
	stop := make(chan struct{})
	var updater sync.WaitGroup
	updater.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			if _, err := b.Update(ctx, "c"+strconv.Itoa(i%3), func(*backend.TaskRecord) error { return nil }); err != nil {
				t.Error(err)
			}
		}
	})
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 40 {
				id := "c" + strconv.Itoa((g+i)%3)
				rec, err := a.Get(ctx, id)
				if err != nil {
					t.Error(err)
					return
				}
				wctx, cancel := context.WithTimeout(ctx, time.Duration(i%7)*3*time.Millisecond)
				err = a.Wait(wctx, id, rec.Version)
				cancel()
				if err != nil && !errors.Is(err, context.DeadlineExceeded) {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	updater.Wait()
	for deadline := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > baseline || len(raw.PubSubChannels(ctx, "*").Val()) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after the Waits: %d goroutines (baseline %d), channels %q", runtime.NumGoroutine(), baseline, raw.PubSubChannels(ctx, "*").Val())
		}
	}
}

// TestTasksWaitIgnoresStaleMessages: a message on a task's channel that
// does not come with a newer version (an old update relayed late by
// another node of a cluster, or any stray PUBLISH) does not end a Wait;
// the next real update does.
func TestTasksWaitIgnoresStaleMessages(t *testing.T) {
	srv := redistest.Start(t)
	a := newTasks(t, srv, nil)
	raw := newClient(t, srv)
	ctx := context.Background()
	if err := a.Create(ctx, newTaskRecord("stale", time.Hour)); err != nil {
		t.Fatal(err)
	}
	woke := make(chan error, 1)
	go func() { woke <- a.Wait(ctx, "stale", 1) }()
	time.Sleep(50 * time.Millisecond) // the Wait is waiting
	for range 3 {
		if err := raw.Publish(ctx, a.key("stale"), "1").Err(); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-woke:
		t.Fatalf("Wait returned on a stale message (%v)", err)
	case <-time.After(150 * time.Millisecond):
	}
	if r, err := a.Update(ctx, "stale", func(*backend.TaskRecord) error { return nil }); r == nil || err != nil {
		t.Fatalf("Update: %v %v", r, err)
	}
	select {
	case err := <-woke:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Wait not woken by the update")
	}
}
