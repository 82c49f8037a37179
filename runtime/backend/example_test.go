package backend_test

import (
	"context"
	"fmt"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// A ReplayGuard claims an id once; instances that serve one tool share one
// (see package redisstore).
func ExampleMemoryReplayGuard() {
	var guard backend.MemoryReplayGuard
	ctx := context.Background()
	first, _ := guard.Claim(ctx, "flow-1", time.Minute)
	again, _ := guard.Claim(ctx, "flow-1", time.Minute)
	fmt.Println(first, again)
	// Output: true false
}
