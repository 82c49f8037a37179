package machine

import (
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/elicitgen/elicitgen/internal/seal"
)

// Settings that are likely mistakes and can be seen when a server is
// built: instances sharing a store (Redis: one deployment of several
// instances) but not what a state needs to open on each of them. Each is
// logged at Warn once per process.

// warnedSetups are the set-up warnings logged in this process.
var warnedSetups sync.Map

// warnSetup warns of opts (as the server gave them, before defaults) with
// keys, once per process and warning.
func warnSetup(opts *elicitrt.ToolOptions, keys *seal.Keyring, logger *slog.Logger) {
	if opts == nil || !sharesStores(opts) {
		return
	}
	if keys.Random() {
		warnOnce(logger, "elicitgen: a store is shared, but the key ring is random to this process (ELICITGEN_STATE_KEYS unset): no other instance opens its states; give every instance the same keys")
	}
	if loopback(opts.Audience) {
		warnOnce(logger, "elicitgen: a store is shared, but ToolOptions.Audience is a loopback address: if each instance names itself, none opens another's states; instances of one deployment share one Audience",
			"audience", opts.Audience)
	}
}

func warnOnce(logger *slog.Logger, msg string, attrs ...any) {
	if _, seen := warnedSetups.LoadOrStore(msg, true); !seen {
		logger.Warn(msg, attrs...)
	}
}

// sharesStores reports whether opts name a replay guard, grant store or
// task store other than the memory ones: one other instances share.
func sharesStores(o *elicitrt.ToolOptions) bool {
	switch o.Replay.(type) {
	case nil, *backend.MemoryReplayGuard:
	default:
		return true
	}
	switch o.Grants.(type) {
	case nil, *backend.MemoryGrants:
	default:
		return true
	}
	switch tasks := unwrapTasks(o.Tasks); tasks.(type) {
	case nil, *backend.MemoryTaskStore:
	default:
		return true
	}
	return false
}

// unwrapTasks returns the task store that store wraps (an Unwrap method,
// as elicittest's recording store has), else store.
func unwrapTasks(store backend.TaskStore) backend.TaskStore {
	for range 8 {
		w, ok := store.(interface{ Unwrap() backend.TaskStore })
		if !ok {
			break
		}
		store = w.Unwrap()
	}
	return store
}

// loopback reports whether audience names a loopback host (an address
// such as http://127.0.0.1:8080 or localhost).
func loopback(audience string) bool {
	host := audience
	if u, err := url.Parse(audience); err == nil && u.Host != "" {
		host = u.Hostname()
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
