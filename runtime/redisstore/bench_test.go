package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/elicitgen/elicitgen/internal/redistest"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// benchIDs returns n distinct ids shaped like the runtime's claim ids.
func benchIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		d := sha256.Sum256(binary.BigEndian.AppendUint64(nil, uint64(i)))
		ids[i] = base64.RawURLEncoding.EncodeToString(d[:])
	}
	return ids
}

// BenchmarkReplayGuardClaim claims b.N distinct flows, one after the
// other, each remembered for ten minutes, on the in-memory guard and on
// the Redis guard (over loopback to a local redis-server), and reports
// what each remembered flow costs: B/flow, the live heap for the memory
// guard, Redis's used_memory for Redis. The ratio of their ns/op is the
// price of sharing the guard, per completed once-flow.
func BenchmarkReplayGuardClaim(b *testing.B) {
	ctx := context.Background()
	b.Run("memory", func(b *testing.B) {
		ids := benchIDs(b.N)
		g := &elicitrt.MemoryReplayGuard{MaxClaims: b.N}
		until := time.Now().Add(10 * time.Minute)
		before := liveHeap()
		b.ResetTimer()
		for i := range b.N {
			if first, err := g.Claim(ctx, strings.Clone(ids[i]), until); !first || err != nil {
				b.Fatal(first, err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(int64(liveHeap())-int64(before))/float64(b.N), "B/flow")
		runtime.KeepAlive(g)
		runtime.KeepAlive(ids)
	})
	b.Run("redis", func(b *testing.B) {
		srv := redistest.Start(b)
		c := newClient(b, srv)
		g := NewReplayGuard(c, nil)
		ids := benchIDs(b.N)
		until := time.Now().Add(10 * time.Minute)
		if _, err := g.Claim(ctx, "warm-up", until); err != nil { // connection, script load
			b.Fatal(err)
		}
		before := usedMemory(b, c)
		b.ResetTimer()
		for i := range b.N {
			if first, err := g.Claim(ctx, ids[i], until); !first || err != nil {
				b.Fatal(first, err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(usedMemory(b, c)-before)/float64(b.N), "B/flow")
	})
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// usedMemory is Redis's INFO memory used_memory.
func usedMemory(b *testing.B, c *redis.Client) int64 {
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("no used_memory in INFO memory")
	return 0
}
