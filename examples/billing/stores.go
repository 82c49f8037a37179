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
// billing share the grant store on Redis: a sign-in finished through one
// instance's pages serves the retry on another, and completes once. The
// grants are sealed with ELICITGEN_STATE_KEYS, which the instances share.
// Without it the store is the in-memory one of this process.

// redisURL is the -redis flag's value, else ELICITGEN_REDIS_URL's.
func redisURL(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return os.Getenv(redisstore.URLEnv)
}

// redisGrants returns the grant store on the Redis at url, sealing with
// keys. A malformed URL is an error; a Redis that does not answer yet is
// logged: sign-ins fail until it does.
func redisGrants(url string, keys *elicitrt.Keyring) (elicitrt.GrantStore, error) {
	client, err := redisstore.NewClient(url)
	if err != nil {
		return nil, fmt.Errorf("-redis or %s: %v", redisstore.URLEnv, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		log.Printf("billing: Redis does not answer yet (%v): sign-ins fail until it does", err)
	}
	log.Printf("billing: the grant store is on Redis at %s", client.Options().Addr)
	return redisstore.NewGrants(client, &redisstore.Options{Keys: keys})
}
