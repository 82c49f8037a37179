// Package redisstore keeps elicitgen's shared state on Redis, so that
// several server instances serve one tool: a [ReplayGuard] (the single use
// of flows that answered a `once` step), a [Grants] store (URL sign-ins:
// the flow records and the grants they produce, sealed with the key ring)
// and a [Tasks] store (MCP Tasks: any instance answers tasks/get,
// tasks/update and tasks/cancel for a task another one runs, which learns
// of the answer or the cancel through pub/sub).
//
// The in-memory stores of package runtime stay the default; a server that
// runs as several instances gives every instance the same Redis:
//
//	client, err := redisstore.NewClient(os.Getenv("ELICITGEN_REDIS_URL"))
//	guard := redisstore.NewReplayGuard(client, nil)
//	grants, err := redisstore.NewGrants(client, &redisstore.Options{Keys: keys})
//	tasks, err := redisstore.NewTasks(client, &redisstore.Options{Keys: keys})
//	opts := &elicitrt.ToolOptions{Keys: keys, Replay: guard, Grants: grants, Tasks: tasks}
//
// The URL is one server's (redis://, rediss://, unix://) or a Redis
// Cluster's (redis://HOST:PORT?addr=HOST2:PORT2&addr=...), with an ACL
// user's name and password if Redis wants them; CAEnv names the CA of a
// rediss:// server (see NewClient and ClientFromSettings). Every script
// and command of the stores touches one key, so the stores run on a
// cluster as they are: no key needs a hash tag, and a task's PUBLISH
// reaches the subscribers of every node.
//
// # Keys and records
//
// Every key starts with [Options.Prefix] ("elicitgen:" by default) and
// carries a TTL, so Redis never grows without bound:
//
//	PREFIX replay:ID      the replay guard's claim of flow ID, until the
//	                      flow's last state expires
//	PREFIX flow:FLOWID    a sign-in flow: claimed by a callback, then done
//	PREFIX grant:DIGEST   a user's grant, under the SHA-256 of the user and
//	                      the URL step's key
//	PREFIX task:ID        a task's record, until the task's expiry (PXAT);
//	                      also the channel its updates are published on
//
// Each value begins with its format version, "v1:" today:
//
//	replay   v1:TOKEN                 TOKEN: 16 random bytes, hex
//	flow     v1:claim:TOKEN           a callback holds the flow
//	         v1:done:SEALED           done; SEALED: the user, sealed
//	grant    v1:SEALED                the grant, sealed
//	task     v1:SEALED[,SEALED...]    the record's JSON, sealed in parts of
//	                                  at most elicitrt.MaxRecordLen bytes
//
// SEALED is an [elicitrt.Keyring.SealRecord] of the value under a binding that
// names the record (the flow, the user and step, or the task id and its
// number of parts), so a sealed value opens only under its own key:
// grants, users and the answers a task holds are encrypted at rest, and a
// value copied to another key does not open. A release reads the
// formats of the previous one; a record of an unknown format is an error
// (never taken as absent, which could re-open a completed flow).
//
// # Failure
//
// Every call to Redis runs under [Options.Timeout]. When Redis does not
// answer, the store returns an error that wraps [ErrUnavailable] and logs
// the cause: the step that needed the store does not complete (the call
// fails, the sign-in page answers 500), nothing panics, and the next call
// after Redis is back works. Nothing is cached in the process. (A call
// whose own context ends first, a client that went away, returns the
// context's error.) The one wait without the timeout is the blocking part
// of [Tasks.Wait] (a task waiting for its answer); a Wait in progress when
// Redis goes away returns once its subscription is made again, so that
// its caller reads the task anew.
//
// # A module of its own, on the public API
//
// This package is the module github.com/elicitgen/elicitgen/runtime/redisstore,
// beside the runtime it plugs into (as go-redis's extra/ modules live
// beside the client), so that a server that does not use Redis has no
// go-redis in its module graph. It stands on the public API alone: the
// stores implement runtime/backend's interfaces and seal their records
// with [elicitrt.Keyring.SealRecord], so any server's own store can do
// what these do.
package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"strings"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/redis/go-redis/v9"
)

// URLEnv is the documented name of the environment variable that holds the
// Redis URL of servers that share their state (the examples read it, and
// their -redis flag overrides it).
const URLEnv = "ELICITGEN_REDIS_URL"

// DefaultPrefix is the prefix of every key when Options.Prefix is empty.
const DefaultPrefix = "elicitgen:"

// DefaultTimeout bounds each call to Redis when Options.Timeout is zero.
const DefaultTimeout = 2 * time.Second

// DefaultGrantTTL is how long a grant stored without expiry (ttl 0) lasts
// when Options.GrantTTL is zero: every key carries a TTL.
const DefaultGrantTTL = 30 * 24 * time.Hour

// formatV1 begins every value this release writes.
const formatV1 = "v1:"

// Options configure the Redis stores. A nil *Options means the defaults
// (and no Keys, which Grants needs).
type Options struct {
	// Prefix begins every key ("elicitgen:" when empty). Deployments
	// sharing one Redis database but not their flows use different
	// prefixes.
	Prefix string
	// Timeout bounds each call to Redis (DefaultTimeout when zero).
	Timeout time.Duration
	// Keys seals what Grants stores (grants, and the user of each done
	// flow) and the records of Tasks. Required by NewGrants and
	// NewTasks; every instance has the same key ring
	// (ELICITGEN_STATE_KEYS). Dropping a key from the ring makes what it
	// sealed unreadable: a grant reads as absent, and the user signs in
	// again; a task reads as gone.
	Keys *elicitrt.Keyring
	// GrantTTL is the lifetime of a grant stored with ttl 0 ("no expiry"),
	// DefaultGrantTTL when zero.
	GrantTTL time.Duration
	// Logger receives the causes of failed calls and unreadable records
	// (slog.Default() when nil).
	Logger *slog.Logger
	// Now is the clock: the expiry of sealed records, and a replay
	// claim's TTL (its until, less now); nil means time.Now.
	Now func() time.Time
}

// withDefaults returns a copy of o with every default filled in.
func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.Prefix == "" {
		c.Prefix = DefaultPrefix
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.GrantTTL <= 0 {
		c.GrantTTL = DefaultGrantTTL
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// ErrUnavailable is wrapped by the error of every call that Redis did not
// answer in time (down, unreachable, timed out, refused). Test with
// errors.Is.
var ErrUnavailable = errors.New("the shared store (Redis) is unavailable")

// unavailable is the error of a failed call: its message names what could
// not be done and says to try again, without the cause (which may hold an
// address; the store logs it), so that it can reach a client as is.
type unavailable struct {
	what  string // e.g. "the flow's single use cannot be checked"
	cause error
}

func (e *unavailable) Error() string {
	return "elicitgen: " + e.what + ": " + ErrUnavailable.Error() + "; try again later"
}

func (e *unavailable) Unwrap() []error { return []error{ErrUnavailable, e.cause} }

// failed logs the cause of a failed call and returns its error; when the
// caller's ctx ended first (the client went away), its error instead: not
// a failure of Redis.
func failed(ctx context.Context, o *Options, op, what string, cause error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	o.Logger.Error("elicitgen: redisstore: "+op+" failed", "err", cause)
	return &unavailable{what: what, cause: cause}
}

// call runs f with the store's timeout.
func call[T any](ctx context.Context, o *Options, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	return f(ctx)
}

// newToken returns a fresh random claim token.
func newToken() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// claimScript sets KEYS[1] to ARGV[1] for ARGV[2] milliseconds unless it
// exists; it returns 1 when this call (or an earlier attempt of it, with
// the same random value: a retry after a lost reply) set it, else 0.
var claimScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if v == ARGV[1] then return 1 end
return 0
`)

// claim runs claimScript.
func claim(ctx context.Context, c redis.Scripter, key, value string, ttl time.Duration) (bool, error) {
	ms := max((ttl + time.Millisecond - 1).Milliseconds(), 1) // rounded up: never shorter than asked
	n, err := claimScript.Run(ctx, c, []string{key}, value, ms).Int()
	return n == 1, err
}

// version returns the format version that begins a stored value ("v1"),
// for messages; never the value itself.
func version(v string) string {
	if i := strings.IndexByte(v, ':'); i > 0 && i <= 8 {
		return v[:i]
	}
	return "none"
}
