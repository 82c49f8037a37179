package redisstore

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Tasks is a backend.TaskStore on Redis: the tasks of every instance
// sharing one Redis (and one Options.Prefix), so that any instance answers
// tasks/get, tasks/update and tasks/cancel for a task another one runs,
// and the instance running it learns of an answer or a cancel at once.
// Give the same store to every instance (ToolOptions.Tasks).
//
// Each task is one key, PREFIX task:ID, holding "v1:" and the record's
// JSON sealed with the key ring (it holds the answers users typed), and
// expiring at the record's Expires (PXAT). Every successful Update
// publishes on the channel of the same name, PREFIX task:ID; Wait listens
// there through one subscription connection per Tasks, shared by all its
// waits and closed when the last one returns.
type Tasks struct {
	c   redis.UniversalClient
	o   Options
	hub hub
}

var _ backend.TaskStore = (*Tasks)(nil)

// NewTasks returns the task store on c. o.Keys is required: the records
// are sealed with it.
func NewTasks(c redis.UniversalClient, o *Options) (*Tasks, error) {
	if o == nil || o.Keys == nil {
		return nil, errors.New("redisstore: NewTasks needs Options.Keys, the key ring that seals task records")
	}
	s := &Tasks{c: c, o: o.withDefaults()}
	s.hub.c, s.hub.o = c, &s.o
	return s, nil
}

// taskRecordTool binds sealed task records (not a valid MCP tool name, so
// no sealed record is a requestState, nor the reverse).
const taskRecordTool = "elicitgen task record"

// taskSealSlack is how long a sealed record opens past its Expires: Redis
// drops the key at Expires by its own clock, and Get reads a record whose
// Expires has passed as gone, so the slack only spares an instance whose
// clock is ahead a record that does not open (and a warning).
const taskSealSlack = time.Minute

func (s *Tasks) key(id string) string { return s.o.Prefix + "task:" + id }

// taskBinding is what the n parts of task id's record are sealed under:
// part i carries round i, so parts neither move nor go missing.
func taskBinding(id string, n int) elicitrt.RecordBinding {
	return elicitrt.RecordBinding{Kind: taskRecordTool, Digest: digest("elicitgen task record v1", id, strconv.Itoa(n))}
}

// seal returns rec's stored value: "v1:" and its JSON, sealed in parts of
// at most elicitrt.MaxRecordLen bytes joined by commas (one part unless
// a result is large).
func (s *Tasks) seal(rec *backend.TaskRecord) (string, error) {
	js, err := json.Marshal(rec)
	if err != nil {
		return "", err
	}
	const part = elicitrt.MaxRecordLen
	n := max(1, (len(js)+part-1)/part)
	b := taskBinding(rec.ID, n)
	now := s.o.Now()
	ttl := max(rec.Expires.Sub(now), 0) + taskSealSlack
	var v strings.Builder
	v.WriteString(formatV1)
	for i := range n {
		sealed, err := s.o.Keys.SealRecord(b, uint32(i), js[i*part:min((i+1)*part, len(js))], now, ttl)
		if err != nil {
			return "", err
		}
		if i > 0 {
			v.WriteByte(',')
		}
		v.WriteString(sealed)
	}
	return v.String(), nil
}

// open returns the record stored as v under task id, or nil when it has
// expired or does not open (logged: the key ring lost its key, or the
// value was altered). A value of an unknown format is an error.
func (s *Tasks) open(id, v string) (*backend.TaskRecord, error) {
	if !strings.HasPrefix(v, formatV1) {
		return nil, errUnknownFormat(&s.o, "task record", v)
	}
	parts := strings.Split(v[len(formatV1):], ",")
	b := taskBinding(id, len(parts))
	now := s.o.Now()
	var js []byte
	for i, p := range parts {
		round, payload, err := s.o.Keys.OpenRecord(b, p, now)
		if err != nil || round != uint32(i) {
			s.o.Logger.Warn("elicitgen: redisstore: a task record does not open (key ring changed?); taken as gone")
			return nil, nil
		}
		js = append(js, payload...)
	}
	rec := new(backend.TaskRecord)
	if err := json.Unmarshal(js, rec); err != nil {
		return nil, err
	}
	if rec.Format > backend.TaskRecordFormat {
		return nil, errUnknownFormat(&s.o, "task record", "v"+strconv.Itoa(rec.Format)+":")
	}
	if rec.ID != id || !now.Before(rec.Expires) {
		return nil, nil
	}
	return rec, nil
}

// pxat is the PXAT argument of a record expiring at t: never in the past.
func (s *Tasks) pxat(t time.Time) int64 {
	return max(t.UnixMilli(), s.o.Now().UnixMilli()+1)
}

// Create implements backend.TaskStore: a set-if-absent of PREFIX task:ID
// expiring at rec.Expires, the record at Version 1. It returns once Redis
// has the record (every instance reads it from then on); an id in use is
// an error.
func (s *Tasks) Create(ctx context.Context, rec *backend.TaskRecord) error {
	c := rec.Clone()
	c.Version = 1
	v, err := s.seal(c)
	if err != nil {
		return err
	}
	// Set if absent, as a replay claim is (the sealed value is unique, so
	// a retry after a lost reply recognises its own write), for the
	// task's remaining life; every Update then sets the expiry (PXAT).
	created, err := call(ctx, &s.o, func(ctx context.Context) (bool, error) {
		return claim(ctx, s.c, s.key(c.ID), v, c.Expires.Sub(s.o.Now()))
	})
	if err != nil {
		return failed(ctx, &s.o, "task create", "the task cannot be stored", err)
	}
	if !created {
		return errors.New("redisstore: task id in use")
	}
	return nil
}

// Get implements backend.TaskStore: one GET.
func (s *Tasks) Get(ctx context.Context, id string) (*backend.TaskRecord, error) {
	v, err := call(ctx, &s.o, func(ctx context.Context) (string, error) {
		return s.c.Get(ctx, s.key(id)).Result()
	})
	switch {
	case errors.Is(err, redis.Nil):
		return nil, nil
	case err != nil:
		return nil, failed(ctx, &s.o, "task read", "the task cannot be read", err)
	}
	return s.open(id, v)
}

// updateScript is Update's compare-and-set: it sets KEYS[1] to ARGV[2],
// expiring at ARGV[3] (Unix ms), and publishes ARGV[4] on KEYS[1]'s
// channel, if the stored value's SHA-1 is still ARGV[1] (no other update
// came between the read and this write). It returns 1 when set (or set by
// an earlier attempt of this call whose reply was lost: every sealed value
// is unique), 2 when the value changed, 0 when the task is gone.
var updateScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
if v == ARGV[2] then return 1 end
if redis.sha1hex(v) ~= ARGV[1] then return 2 end
redis.call('SET', KEYS[1], ARGV[2], 'PXAT', ARGV[3])
redis.call('PUBLISH', KEYS[1], ARGV[4])
return 1
`)

// Update implements backend.TaskStore, optimistically: it reads the
// record, applies change to a copy, and writes it back with updateScript
// only if no other update (on any instance) came in between; if one did,
// it reads again and calls change again. All the attempts together run
// under Options.Timeout. A successful update publishes the new version on
// PREFIX task:ID, which wakes the Waits on every instance.
func (s *Tasks) Update(ctx context.Context, id string, change func(*backend.TaskRecord) error) (*backend.TaskRecord, error) {
	tctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	key := s.key(id)
	for {
		v, err := s.c.Get(tctx, key).Result()
		switch {
		case errors.Is(err, redis.Nil):
			return nil, nil
		case err != nil:
			return nil, failed(ctx, &s.o, "task update", "the task cannot be updated", err)
		}
		cur, err := s.open(id, v)
		if cur == nil || err != nil {
			return nil, err
		}
		next := cur.Clone()
		if err := change(next); err != nil {
			return nil, err
		}
		next.ID, next.Version, next.UpdatedAt = id, cur.Version+1, s.o.Now()
		nv, err := s.seal(next)
		if err != nil {
			return nil, err
		}
		sum := sha1.Sum([]byte(v))
		res, err := updateScript.Run(tctx, s.c, []string{key}, hex.EncodeToString(sum[:]), nv,
			s.pxat(next.Expires), strconv.FormatUint(next.Version, 10)).Int()
		switch {
		case err != nil:
			return nil, failed(ctx, &s.o, "task update", "the task cannot be updated", err)
		case res == 0:
			return nil, nil
		case res == 1:
			return next, nil
		}
		// Another update won the race: read it and change again.
	}
}

// Wait implements backend.TaskStore. It subscribes to PREFIX task:ID
// (sharing the store's one subscription connection) and waits until
// Redis confirms the subscription, then reads the record; if its Version
// is not past version, it waits for a message on the channel, the
// record's expiry or the end of ctx, and reads the record again. So an
// update made anywhere after the read wakes it, and a stale message does
// not. When the subscription connection is lost and made again, every
// Wait reads again: updates published meanwhile were lost. The
// subscription and each read run under Options.Timeout; when Redis does not answer, Wait returns an error
// wrapping ErrUnavailable.
func (s *Tasks) Wait(ctx context.Context, id string, version uint64) error {
	ch := s.key(id)
	sub, err := s.hub.join(ctx, ch)
	if err != nil {
		return err
	}
	defer s.hub.leave(ch, sub)
	for {
		wake := s.hub.wakeChan(sub) // before the read: an update after it closes wake
		rec, err := s.Get(ctx, id)
		if err != nil {
			return err
		}
		if rec == nil || rec.Version > version {
			return nil
		}
		if woken, err := s.sleep(ctx, wake, rec.Expires); !woken {
			return err
		}
	}
}

// sleep waits for wake (true), the expiry (false, nil) or the end of ctx
// (false, its error). A wake may be stale (in a Redis Cluster each node
// relays a PUBLISH in its own time, so a subscription made after an update
// can still receive it) or mean that messages were lost: Wait reads the
// record again either way, and returns only when its Version moved.
func (s *Tasks) sleep(ctx context.Context, wake chan struct{}, expires time.Time) (bool, error) {
	timer := time.NewTimer(expires.Sub(s.o.Now()))
	defer timer.Stop()
	select {
	case <-wake:
		return true, nil
	case <-timer.C:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// hub is a Tasks' one subscription connection, shared by its Waits: one
// SUBSCRIBE per task channel that at least one Wait watches, and one
// goroutine reading the connection, both alive only while a Wait is.
type hub struct {
	c redis.UniversalClient
	o *Options

	// wmu orders the SUBSCRIBE and UNSUBSCRIBE commands as mu's state
	// changed: taken under mu, held over the write, after mu is released.
	wmu sync.Mutex

	mu    sync.Mutex
	ps    *redis.PubSub // nil when no Wait is in progress
	stop  chan struct{} // closed to stop the reader of ps
	done  chan struct{} // closed when the reader of ps has returned
	users int           // Waits in progress
	chans map[string]*subscription
	pings map[string]*subscription // by the payload of a pending PING
}

// subscription is one channel's SUBSCRIBE and the Waits on it.
type subscription struct {
	waiters  int
	token    string        // the payload of its PING
	deadline time.Time     // when it fails if Redis has not confirmed it
	ready    chan struct{} // closed when Redis has the SUBSCRIBE, or it failed
	failed   bool          // the SUBSCRIBE failed (set before ready closes)
	wake     chan struct{} // closed and replaced at every message on the channel
}

// join registers a Wait on channel ch and returns once Redis has the
// channel's subscription: its first Wait sends SUBSCRIBE and a PING with a
// fresh token on the subscription connection; Redis answers in order, so
// the PONG means the SUBSCRIBE is in effect. Later Waits on ch wait for the
// same PONG.
func (h *hub) join(ctx context.Context, ch string) (*subscription, error) {
	h.mu.Lock()
	startReader := h.open()
	h.users++
	sub := h.chans[ch]
	if sub != nil {
		sub.waiters++
		h.mu.Unlock()
	} else {
		sub = h.subscribe(ctx, ch, startReader)
	}
	timer := time.NewTimer(time.Until(sub.deadline))
	select {
	case <-sub.ready:
	case <-timer.C:
		// No PONG in time (Redis is down, or the connection was lost
		// with the PING): this subscription fails for all its Waits.
		h.fail(ch, sub)
	case <-ctx.Done():
	}
	timer.Stop()
	h.mu.Lock()
	ok := isClosed(sub.ready) && !sub.failed
	h.mu.Unlock()
	if !ok {
		h.leave(ch, sub)
		return nil, failed(ctx, h.o, "task subscription", "the task cannot be watched", errors.New("no confirmation of the SUBSCRIBE in time"))
	}
	return sub, nil
}

// open makes the hub's subscription connection (its PubSub) when no Wait
// is in progress (mu held), and returns the start of its reader, nil when
// it was open. The reader starts once the first SUBSCRIBE made the
// connection: a Receive before it would make it with no channel, on a
// random node of a cluster instead of the channel's master.
func (h *hub) open() (startReader func()) {
	if h.ps != nil {
		return nil
	}
	ps, stop, done := h.c.Subscribe(context.Background()), make(chan struct{}), make(chan struct{})
	h.ps, h.stop, h.done = ps, stop, done
	h.chans = make(map[string]*subscription)
	h.pings = make(map[string]*subscription)
	return func() { go h.read(ps, stop, done) }
}

// subscribe sends the SUBSCRIBE of ch and a PING with a fresh token, for
// ch's first Wait; it is called with mu held and releases it. startReader,
// when not nil, starts the connection's reader after the SUBSCRIBE.
func (h *hub) subscribe(ctx context.Context, ch string, startReader func()) *subscription {
	sub := &subscription{waiters: 1, token: newToken(), deadline: time.Now().Add(h.o.Timeout),
		ready: make(chan struct{}), wake: make(chan struct{})}
	h.chans[ch] = sub
	h.pings[sub.token] = sub
	ps := h.ps
	h.wmu.Lock()
	h.mu.Unlock()
	// The subscription serves other Waits too: its writes do not end
	// with this one's context.
	wctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), sub.deadline)
	err := ps.Subscribe(wctx, ch)
	if err == nil {
		err = ps.Ping(wctx, sub.token)
	}
	cancel()
	if startReader != nil {
		startReader()
	}
	h.wmu.Unlock()
	if err != nil {
		h.fail(ch, sub)
	}
	return sub
}

// fail ends the subscription sub of ch, unless Redis confirmed it: its
// SUBSCRIBE or PING failed, or no PONG came in time. Its Waits return an
// error, and the next Wait on ch subscribes anew.
func (h *hub) fail(ch string, sub *subscription) {
	h.mu.Lock()
	if isClosed(sub.ready) {
		h.mu.Unlock()
		return
	}
	delete(h.pings, sub.token)
	sub.failed = true
	close(sub.ready)
	if h.chans[ch] != sub {
		h.mu.Unlock()
		return
	}
	delete(h.chans, ch)
	h.unsubscribe(ch)
}

// unsubscribe sends UNSUBSCRIBE ch, in order with the other SUBSCRIBE and
// UNSUBSCRIBE commands; it is called with mu held and releases it. If the
// write fails, ch is out of the connection's set all the same: a new
// connection does not subscribe to it.
func (h *hub) unsubscribe(ch string) {
	ps := h.ps
	h.wmu.Lock()
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), h.o.Timeout)
	ps.Unsubscribe(ctx, ch)
	cancel()
	h.wmu.Unlock()
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// wakeChan returns the channel the next message on sub closes.
func (h *hub) wakeChan(sub *subscription) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return sub.wake
}

// leave unregisters a Wait on ch: the channel's last one unsubscribes, and
// the hub's last one closes the connection and waits for its reader to
// return.
func (h *hub) leave(ch string, sub *subscription) {
	h.mu.Lock()
	sub.waiters--
	unsubscribe := sub.waiters == 0 && h.chans[ch] == sub
	if unsubscribe {
		delete(h.chans, ch)
		delete(h.pings, sub.token)
	}
	h.users--
	if h.users == 0 {
		ps, stop, done := h.ps, h.stop, h.done
		h.ps, h.chans, h.pings = nil, nil, nil
		h.mu.Unlock()
		close(stop)
		ps.Close()
		<-done
		return
	}
	if !unsubscribe {
		h.mu.Unlock()
		return
	}
	h.unsubscribe(ch)
}

// read reads ps until stop closes: a message on a channel, or a
// (re)subscription to it (after a lost connection, whose messages were
// lost), wakes the channel's Waits; a PONG confirms a pending SUBSCRIBE.
func (h *hub) read(ps *redis.PubSub, stop, done chan struct{}) {
	defer close(done)
	backoff := 50 * time.Millisecond
	for {
		msg, err := ps.Receive(context.Background())
		select {
		case <-stop:
			return
		default:
		}
		if err != nil {
			// Redis is down or the connection dropped: ps dials again at
			// the next Receive and resubscribes to every channel.
			select {
			case <-stop:
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 50 * time.Millisecond
		h.mu.Lock()
		switch m := msg.(type) {
		case *redis.Message:
			h.wake(m.Channel)
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				h.wake(m.Channel)
			}
		case *redis.Pong:
			if sub := h.pings[m.Payload]; sub != nil && !isClosed(sub.ready) {
				delete(h.pings, m.Payload)
				close(sub.ready)
			}
		}
		h.mu.Unlock()
	}
}

// wake wakes the Waits on ch (mu held).
func (h *hub) wake(ch string) {
	if sub := h.chans[ch]; sub != nil {
		close(sub.wake)
		sub.wake = make(chan struct{})
	}
}
