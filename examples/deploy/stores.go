package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/redisstore"
)

// With -redis redis://HOST:PORT/DB (or ELICITGEN_REDIS_URL), instances of
// deploy share the replay guard on Redis: a production confirmation
// completes once across all of them. Without it the guard is the
// in-memory one of this process. Instances also share ELICITGEN_STATE_KEYS.

// redisURL is the -redis flag's value, else ELICITGEN_REDIS_URL's.
func redisURL(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return os.Getenv(redisstore.URLEnv)
}

// redisReplayGuard returns the replay guard on the Redis at url. A
// malformed URL is an error; a Redis that does not answer yet is logged:
// confirmations fail until it does.
func redisReplayGuard(url string) (elicitrt.ReplayGuard, error) {
	client, err := redisstore.NewClient(url)
	if err != nil {
		return nil, fmt.Errorf("-redis or %s: %v", redisstore.URLEnv, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		log.Printf("deploy: Redis does not answer yet (%v): production confirmations fail until it does", err)
	}
	log.Printf("deploy: the replay guard is on Redis at %s", client.Options().Addr)
	return redisstore.NewReplayGuard(client, nil), nil
}
