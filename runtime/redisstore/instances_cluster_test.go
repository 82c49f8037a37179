package redisstore_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// TestRedisInstancesOnCluster: two fixture processes whose Redis is a
// three-master cluster (one told by -redis, the other by
// ELICITGEN_REDIS_URL, the URL redis://NODE1?addr=NODE2&addr=NODE3). 60
// production deploys run at once, each round on the other instance than
// the one before; each completes exactly once; its confirmation, raced on
// both instances, is refused as already used; the cluster then holds one
// claim per flow, spread over its masters.
func TestRedisInstancesOnCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster and two server processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cl := redistest.StartCluster(t)
	_, sessions := twoInstancesOn(t, ctx, cl.URL)
	const flows = 60
	var completions, refused atomic.Int32
	var wg sync.WaitGroup
	for n := range flows {
		wg.Go(func() {
			f, err := toConfirmation(ctx, sessions, n)
			if err != nil {
				t.Error(err)
				return
			}
			if ok, err := f.completed(f.confirm(ctx, sessions[n%2])); err != nil || !ok {
				t.Errorf("%s: not completed (%v)", f.service, err)
				return
			}
			completions.Add(1)
			var replays sync.WaitGroup
			for _, cs := range sessions {
				replays.Go(func() {
					again, err := f.replay(ctx, cs)
					switch {
					case again:
						completions.Add(1)
						t.Error(err)
					case err != nil:
						t.Error(err)
					default:
						refused.Add(1)
					}
				})
			}
			replays.Wait()
		})
	}
	wg.Wait()
	if n := completions.Load(); n != flows || refused.Load() != 2*flows {
		t.Fatalf("%d completions and %d refused replays of %d flows", n, refused.Load(), flows)
	}
	if n := cl.DBSize(); n != flows {
		t.Fatalf("the cluster holds %d keys after %d flows, want one each", n, flows)
	}
	for i, node := range cl.Nodes {
		if node.DBSize() == 0 {
			t.Errorf("master %d holds none of the claims", i)
		}
	}
}
