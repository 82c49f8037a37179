package redistest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Cluster is a Redis Cluster started by StartCluster (three masters, no
// replicas) or StartClusterWith (three masters and their replicas):
// redis-server processes with --cluster-enabled yes, joined by redis-cli
// --cluster create.
type Cluster struct {
	// Nodes are every node: the three masters first, then the replicas
	// (as they were created: a failover swaps the roles).
	Nodes []*Server
	// URL is the cluster's URL as go-redis's ParseClusterURL reads it:
	// redis://NODE1?addr=NODE2&addr=NODE3 (the three masters; rediss://
	// with ClusterOptions.TLS).
	URL string
	// CAFile, ClientCertFile and ClientKeyFile are, with
	// ClusterOptions.TLS, the PEM files of the CA that signed every node's
	// certificate and of a client certificate it signed, and its key (the
	// nodes require one); else "".
	CAFile, ClientCertFile, ClientKeyFile string

	t testing.TB
}

// ClusterOptions configure StartClusterWith.
type ClusterOptions struct {
	// Replicas is the number of replicas of each master (0: none).
	Replicas int
	// NodeTimeout is --cluster-node-timeout (5 s when zero): how long a
	// node goes unanswered before it is taken as failing, and so about
	// how long a failover takes.
	NodeTimeout time.Duration
	// TLS makes every node speak TLS only, to clients, to each other
	// (--tls-cluster yes) and to its replicas (--tls-replication yes),
	// with one certificate for 127.0.0.1 that a CA made for the test
	// signed, and require a client certificate (--tls-auth-clients yes,
	// redis-server's default), as StartMutualTLS does.
	TLS bool
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
	return StartClusterWith(t, ClusterOptions{})
}

// StartClusterWith is StartCluster with o.Replicas replicas of each
// master (redis-cli --cluster create --cluster-replicas N: 3 × (1+N)
// processes) and o.NodeTimeout; it returns once every node reports
// cluster_state:ok and every replica is in sync with its master.
func StartClusterWith(t testing.TB, o ClusterOptions) *Cluster {
	t.Helper()
	cli := CLIBinary(t)
	if o.NodeTimeout <= 0 {
		o.NodeTimeout = 5 * time.Second
	}
	c := &Cluster{t: t}
	var files *tlsFiles
	if o.TLS {
		files = newTLSFiles(t, t.TempDir())
		c.CAFile, c.ClientCertFile, c.ClientKeyFile = files.ca, files.clientCert, files.clientKey
	}
	addrs := make([]string, 3*(1+o.Replicas))
	for i := range addrs {
		c.Nodes = append(c.Nodes, c.startNode(o, files))
		addrs[i] = c.Nodes[i].Addr
	}
	scheme, cliTLS := "redis://", []string(nil)
	if o.TLS {
		scheme, cliTLS = "rediss://", []string{"--tls", "--cacert", files.ca, "--cert", files.clientCert, "--key", files.clientKey}
	}
	c.URL = scheme + addrs[0] + "?addr=" + addrs[1] + "&addr=" + addrs[2]
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append(append(cliTLS, "--cluster", "create"), addrs...)
	args = append(args, "--cluster-replicas", strconv.Itoa(o.Replicas), "--cluster-yes")
	out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("redistest: redis-cli --cluster create: %v\n%s", err, out)
	}
	known := "cluster_known_nodes:" + strconv.Itoa(len(addrs))
	c.waitFor(30*time.Second, func(s *Server) error {
		info, err := s.Do("CLUSTER", "INFO")
		if err == nil && (!strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, known)) {
			err = fmt.Errorf("%q", info)
		}
		return err
	})
	if o.Replicas > 0 {
		c.WaitReplicated()
	}
	return c
}

// startNode starts one node of c, over TLS with files' certificates when
// they are not nil, and stops it when the test ends.
func (c *Cluster) startNode(o ClusterOptions, files *tlsFiles) *Server {
	c.t.Helper()
	s := newServer(c.t)
	s.extra = []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
		"--cluster-node-timeout", strconv.FormatInt(o.NodeTimeout.Milliseconds(), 10), "--cluster-port", freePort(c.t),
		// A replica takes over however long ago it last heard from its
		// master: on a loaded machine a late ping must not leave the
		// killed master's slots without a master (tests wait for the
		// replication before they kill).
		"--cluster-replica-validity-factor", "0"}
	if files != nil {
		s.useTLS(files, true)
		s.extra = append(s.extra, "--tls-cluster", "yes", "--tls-replication", "yes")
	}
	s.start()
	c.t.Cleanup(s.Stop)
	return s
}

// waitFor polls ok on every live node until it returns nil for all of
// them, or fails the test after d.
func (c *Cluster) waitFor(d time.Duration, ok func(*Server) error) {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for _, s := range c.Live() {
		for {
			err := ok(s)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				c.t.Fatalf("redistest: the cluster node %s is not ready after %v: %v", s.Addr, d, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// Live returns the nodes that have not been stopped.
func (c *Cluster) Live() []*Server {
	var live []*Server
	for _, s := range c.Nodes {
		if s.cmd != nil {
			live = append(live, s)
		}
	}
	return live
}

// DBSize returns the number of keys on the live masters.
func (c *Cluster) DBSize() int {
	n := 0
	for _, s := range c.Live() {
		if c.isMaster(s) {
			n += s.DBSize()
		}
	}
	return n
}

// isMaster reports whether s says it is a master (INFO replication).
func (c *Cluster) isMaster(s *Server) bool {
	c.t.Helper()
	info, err := s.Do("INFO", "replication")
	if err != nil {
		c.t.Fatalf("redistest: INFO replication on %s: %v", s.Addr, err)
	}
	return strings.Contains(info, "role:master")
}
