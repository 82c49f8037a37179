package redistest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Cluster is a Redis Cluster of three masters (no replicas) started by
// StartCluster: three redis-server processes with --cluster-enabled yes,
// joined by redis-cli --cluster create.
type Cluster struct {
	// Nodes are the three masters.
	Nodes []*Server
	// URL is the cluster's URL as go-redis's ParseClusterURL reads it:
	// redis://NODE1?addr=NODE2&addr=NODE3.
	URL string
}

// CLIBinary returns the path of redis-cli, or skips t (fails it under
// CI=true) when it is not installed.
func CLIBinary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-cli")
	if err == nil {
		return bin
	}
	const how = "redis-cli is not installed: install it (Debian: apt-get install -y redis-tools) to run the Redis Cluster tests"
	if os.Getenv("CI") == "true" {
		t.Fatal(how + " (CI=true: not skipping)")
	}
	t.Skip(how)
	return ""
}

// StartCluster starts three masters on free 127.0.0.1 ports (their
// cluster bus ports free too), persistence off, each in its own
// temporary directory, creates the cluster with redis-cli --cluster
// create, waits until every node reports cluster_state:ok, and stops
// them when t ends.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	cli := CLIBinary(t)
	c := &Cluster{}
	addrs := make([]string, 3)
	for i := range addrs {
		s := newServer(t)
		s.extra = []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "5000", "--cluster-port", freePort(t)}
		s.start()
		t.Cleanup(s.Stop)
		c.Nodes = append(c.Nodes, s)
		addrs[i] = s.Addr
	}
	c.URL = "redis://" + addrs[0] + "?addr=" + addrs[1] + "&addr=" + addrs[2]
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"--cluster", "create"}, addrs...)
	out, err := exec.CommandContext(ctx, cli, append(args, "--cluster-replicas", "0", "--cluster-yes")...).CombinedOutput()
	if err != nil {
		t.Fatalf("redistest: redis-cli --cluster create: %v\n%s", err, out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, s := range c.Nodes {
		for {
			info, err := s.Do("CLUSTER", "INFO")
			if err == nil && strings.Contains(info, "cluster_state:ok") && strings.Contains(info, "cluster_known_nodes:3") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("redistest: the cluster node %s is not ok after 30s: %q %v", s.Addr, info, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return c
}

// DBSize returns the number of keys on all the nodes.
func (c *Cluster) DBSize() int {
	n := 0
	for _, s := range c.Nodes {
		n += s.DBSize()
	}
	return n
}
