package redistest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A failover, as the tests of StartClusterWith provoke it: find the master
// of a key (MasterOf), wait until its replica has every write
// (WaitReplicated), kill it (Kill: SIGKILL), and wait until its replica
// serves its slots (WaitFailover).

// clusterNode is one line of CLUSTER NODES.
type clusterNode struct {
	id, addr, master string
	flags            []string
	slots            []string // "A-B" or "A" ranges; no migrating slots here
}

// nodes returns the CLUSTER NODES of s.
func nodes(s *Server) ([]clusterNode, error) {
	out, err := s.Do("CLUSTER", "NODES")
	if err != nil {
		return nil, err
	}
	var list []clusterNode
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 {
			return nil, fmt.Errorf("CLUSTER NODES line %q", line)
		}
		addr, _, _ := strings.Cut(f[1], "@")
		list = append(list, clusterNode{id: f[0], addr: addr, master: f[3], flags: strings.Split(f[2], ","), slots: f[8:]})
	}
	return list, nil
}

// servesSlot reports whether n is a healthy master holding slot.
func (n *clusterNode) servesSlot(slot int) bool {
	if !slices.Contains(n.flags, "master") || slices.Contains(n.flags, "fail") || slices.Contains(n.flags, "fail?") {
		return false
	}
	for _, r := range n.slots {
		lo, hi, _ := strings.Cut(r, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if hi != "" {
			b, _ = strconv.Atoi(hi)
		}
		if err == nil && slot >= a && slot <= b {
			return true
		}
	}
	return false
}

// servesAll reports whether n is a healthy master holding every slot of
// slots, and slots are not empty.
func (n *clusterNode) servesAll(slots []int) bool {
	for _, slot := range slots {
		if !n.servesSlot(slot) {
			return false
		}
	}
	return len(slots) > 0
}

// node returns the live Server at addr, or nil.
func (c *Cluster) node(addr string) *Server {
	for _, s := range c.Live() {
		if s.Addr == addr {
			return s
		}
	}
	return nil
}

// Slot returns the hash slot of key (CLUSTER KEYSLOT on a live node).
func (c *Cluster) Slot(key string) int {
	c.t.Helper()
	return c.Live()[0].Int("CLUSTER", "KEYSLOT", key)
}

// MasterOf returns the live master that serves key's slot, as the first
// live node sees the cluster.
func (c *Cluster) MasterOf(key string) *Server {
	c.t.Helper()
	slot := c.Slot(key)
	list, err := nodes(c.Live()[0])
	if err != nil {
		c.t.Fatalf("redistest: CLUSTER NODES: %v", err)
	}
	for _, n := range list {
		if s := c.node(n.addr); s != nil && n.servesSlot(slot) {
			return s
		}
	}
	c.t.Fatalf("redistest: no live master serves slot %d of %q", slot, key)
	return nil
}

// WaitReplicated waits (10 s at most) until every replica's link to its
// master is up and the replica has applied every write its master had
// when WaitReplicated was called (slave_repl_offset on the replica at
// least the master's master_repl_offset). Replication is asynchronous: a
// write a master acknowledged is lost in a failover unless its replica
// had it.
func (c *Cluster) WaitReplicated() {
	c.t.Helper()
	want := map[string]int{} // the offset each replica must reach, by address
	for _, s := range c.Live() {
		info, err := s.Do("INFO", "replication")
		if err != nil {
			c.t.Fatalf("redistest: INFO replication on %s: %v", s.Addr, err)
		}
		if infoField(info, "role") != "master" {
			continue
		}
		off, _ := strconv.Atoi(infoField(info, "master_repl_offset"))
		for _, n := range c.replicasOf(s) {
			want[n.addr] = off
		}
	}
	c.waitFor(10*time.Second, func(s *Server) error {
		off, ok := want[s.Addr]
		if !ok {
			return nil
		}
		info, err := s.Do("INFO", "replication")
		if err != nil {
			return err
		}
		got, _ := strconv.Atoi(infoField(info, "slave_repl_offset"))
		if infoField(info, "master_link_status") != "up" || got < off {
			return fmt.Errorf("replica link %s, offset %d of %d", infoField(info, "master_link_status"), got, off)
		}
		return nil
	})
}

// replicasOf returns the CLUSTER NODES lines of master's replicas.
func (c *Cluster) replicasOf(master *Server) []clusterNode {
	c.t.Helper()
	list, err := nodes(master)
	if err != nil {
		c.t.Fatalf("redistest: CLUSTER NODES on %s: %v", master.Addr, err)
	}
	var id string
	for _, n := range list {
		if n.addr == master.Addr {
			id = n.id
		}
	}
	var replicas []clusterNode
	for _, n := range list {
		if n.master == id && slices.Contains(n.flags, "slave") && c.node(n.addr) != nil {
			replicas = append(replicas, n)
		}
	}
	return replicas
}

// infoField returns the value of name in an INFO reply, or "".
func infoField(info, name string) string {
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}

// Kill kills the node s (SIGKILL, as a crash: Server.Stop) and returns the
// slots it served, for WaitFailover.
func (c *Cluster) Kill(s *Server) []int {
	c.t.Helper()
	list, err := nodes(s)
	if err != nil {
		c.t.Fatalf("redistest: CLUSTER NODES on %s: %v", s.Addr, err)
	}
	var slots []int
	for _, n := range list {
		if n.addr != s.Addr {
			continue
		}
		for slot := range 16384 {
			if n.servesSlot(slot) {
				slots = append(slots, slot)
			}
		}
	}
	s.Stop()
	return slots
}

// WaitFailover waits (at most d) until every live node reports
// cluster_state:ok and sees one healthy master serving all of slots (a
// Kill's); it returns that master: the promoted replica.
func (c *Cluster) WaitFailover(slots []int, d time.Duration) *Server {
	c.t.Helper()
	var promoted string
	c.waitFor(d, func(s *Server) error {
		info, err := s.Do("CLUSTER", "INFO")
		if err != nil || !strings.Contains(info, "cluster_state:ok") {
			return fmt.Errorf("cluster_state not ok (%v)", err)
		}
		list, err := nodes(s)
		if err != nil {
			return err
		}
		for _, n := range list {
			if c.node(n.addr) != nil && n.servesAll(slots) {
				if promoted != "" && promoted != n.addr {
					return fmt.Errorf("%s serves the slots, %s too", promoted, n.addr)
				}
				promoted = n.addr
				return nil
			}
		}
		return fmt.Errorf("no live master serves the %d slots of the killed node", len(slots))
	})
	return c.node(promoted)
}

// ReplicaOf returns a live replica of master, or nil.
func (c *Cluster) ReplicaOf(master *Server) *Server {
	c.t.Helper()
	for _, n := range c.replicasOf(master) {
		return c.node(n.addr)
	}
	return nil
}

// WaitUnreplicated waits (5 s at most) until master has no replica
// connected (INFO replication connected_slaves:0): what it acknowledges
// from then on reaches no replica until one connects again.
func (c *Cluster) WaitUnreplicated(master *Server) {
	c.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		info, err := master.Do("INFO", "replication")
		if err == nil && infoField(info, "connected_slaves") == "0" {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("redistest: %s still has a replica connected: %v", master.Addr, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
