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

	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
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
		g := &backend.MemoryReplayGuard{MaxClaims: b.N}
		until := 10 * time.Minute
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
		until := 10 * time.Minute
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

// BenchmarkTaskUpdate updates one task b.N times, one update after the
// other (the progress message of a running task), on the in-memory store
// and on the Redis store (over loopback to a local redis-server: a GET and
// the compare-and-set script per update, each record sealed anew). The
// ratio of their ns/op is the price of sharing the tasks, per update.
func BenchmarkTaskUpdate(b *testing.B) {
	ctx := context.Background()
	stores := []struct {
		name string
		new  func(b *testing.B) backend.TaskStore
	}{
		{"memory", func(*testing.B) backend.TaskStore { return &backend.MemoryTaskStore{} }},
		{"redis", func(b *testing.B) backend.TaskStore {
			s, err := NewTasks(newClient(b, redistest.Start(b)), &Options{Keys: testKeys(b)})
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			s := st.new(b)
			now := time.Now()
			rec := &backend.TaskRecord{Format: backend.TaskRecordFormat, ID: "bench", Principal: "alice", Tool: "report",
				Status: backend.TaskWorking, CreatedAt: now, UpdatedAt: now, Expires: now.Add(time.Hour), PollInterval: time.Second}
			if err := s.Create(ctx, rec); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Update(ctx, "bench", func(*backend.TaskRecord) error { return nil }); err != nil { // connection, script load
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				r, err := s.Update(ctx, "bench", func(r *backend.TaskRecord) error {
					r.StatusMessage = "step " + strconv.Itoa(i)
					return nil
				})
				if r == nil || err != nil {
					b.Fatal(r, err)
				}
			}
		})
	}
}
