package testutil

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RedisCluster is a private Redis Cluster on free loopback ports: three
// primaries or more, each with its replicas, created with redis-cli
// --cluster create. Nodes time out after ClusterNodeTimeout, so a killed
// primary's replica takes over within a few seconds. Each node is a Redis
// (Kill, Start, Pause); a node started again rejoins the cluster from its
// nodes.conf.
type RedisCluster struct {
	t testing.TB
	// Primaries are the nodes created as primaries, Replicas the others;
	// after a failover a replica may be primary (see Primary).
	Primaries, Replicas []*Redis
}

// ClusterNodeTimeout is the cluster-node-timeout of a private cluster.
const ClusterNodeTimeout = time.Second

// clusterWait bounds how long a private cluster may take to agree on its
// slots after a change.
const clusterWait = 30 * time.Second

// StartRedisCluster starts primaries primaries with replicas replicas each
// and waits until every node sees the cluster ok, or stops the test
// (Needs) when redis-server or redis-cli is missing. Everything is killed
// when the test ends.
func StartRedisCluster(t testing.TB, primaries, replicas int) *RedisCluster {
	t.Helper()
	bin := redisBinary(t)
	if _, err := exec.LookPath("redis-cli"); err != nil {
		Needs(t, "no redis-cli binary on PATH (%v)", err)
	}
	c := &RedisCluster{t: t}
	args := []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
		"--cluster-node-timeout", strconv.Itoa(int(ClusterNodeTimeout / time.Millisecond))}
	create := []string{"--cluster", "create"}
	for i := range primaries * (1 + replicas) {
		// The bus port is free too: by default it is the port + 10000,
		// which a port above 55535 cannot have.
		n := startRedisConf(t, bin, "", true, args...)
		if i < primaries {
			c.Primaries = append(c.Primaries, n)
		} else {
			c.Replicas = append(c.Replicas, n)
		}
		create = append(create, n.addr())
	}
	create = append(create, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	if out, err := exec.Command("redis-cli", create...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	c.WaitOK()
	return c
}

// URL is the redis+cluster:// URL with every node as a seed.
func (c *RedisCluster) URL() string {
	var addrs []string
	for _, n := range c.Nodes() {
		addrs = append(addrs, n.addr())
	}
	return "redis+cluster://" + strings.Join(addrs, ",")
}

// Nodes returns every node, primaries first.
func (c *RedisCluster) Nodes() []*Redis {
	return append(append([]*Redis(nil), c.Primaries...), c.Replicas...)
}

// WaitOK waits until every running node reports cluster_state:ok and knows
// every node, and every running replica is in sync with its primary.
func (c *RedisCluster) WaitOK() {
	c.t.Helper()
	Eventually(c.t, clusterWait, "the redis cluster ok on every node", func() bool {
		for _, n := range c.Nodes() {
			if !n.running() {
				continue
			}
			info, err := n.Cli("CLUSTER", "INFO")
			if err != nil || !strings.Contains(info, "cluster_state:ok") {
				return false
			}
			if role, _ := n.Cli("ROLE"); strings.HasPrefix(role, "slave") && !strings.Contains(role, "connected") {
				return false
			}
		}
		return true
	})
}

// Primary returns the running node that serves key's slot as primary.
func (c *RedisCluster) Primary(key string) *Redis {
	c.t.Helper()
	slot := c.Slot(key)
	for _, n := range c.Nodes() {
		if !n.running() {
			continue
		}
		if role, _ := n.Cli("ROLE"); !strings.HasPrefix(role, "master") {
			continue
		}
		if n.owns(slot) {
			return n
		}
	}
	c.t.Fatalf("no running primary serves slot %d", slot)
	return nil
}

// Slot returns key's hash slot.
func (c *RedisCluster) Slot(key string) int {
	c.t.Helper()
	out, err := c.any().Cli("CLUSTER", "KEYSLOT", key)
	n, err2 := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || err2 != nil {
		c.t.Fatalf("CLUSTER KEYSLOT: %q %v", out, err)
	}
	return n
}

// any returns a running node.
func (c *RedisCluster) any() *Redis {
	for _, n := range c.Nodes() {
		if n.running() {
			return n
		}
	}
	c.t.Fatal("no node of the redis cluster is running")
	return nil
}

// MoveSlot moves a slot, with its keys, from its primary to another
// primary, as redis-cli --cluster reshard does for each slot it moves:
// IMPORTING on the target, MIGRATING on the source, MIGRATE of the keys,
// then the slot's new owner told to every primary.
func (c *RedisCluster) MoveSlot(slot int, from, to *Redis) {
	c.t.Helper()
	s := strconv.Itoa(slot)
	fromID, toID := from.ID(), to.ID()
	c.must(to, "CLUSTER", "SETSLOT", s, "IMPORTING", fromID)
	c.must(from, "CLUSTER", "SETSLOT", s, "MIGRATING", toID)
	for {
		keys, err := from.Cli("CLUSTER", "GETKEYSINSLOT", s, "100")
		if err != nil {
			c.t.Fatalf("CLUSTER GETKEYSINSLOT: %v", err)
		}
		if strings.TrimSpace(keys) == "" {
			break
		}
		args := []string{"MIGRATE", "127.0.0.1", strconv.Itoa(to.port), "", "0", "5000", "KEYS"}
		c.must(from, append(args, strings.Fields(keys)...)...)
	}
	for _, n := range append([]*Redis{to, from}, c.Nodes()...) {
		if role, _ := n.Cli("ROLE"); n.running() && strings.HasPrefix(role, "master") {
			c.must(n, "CLUSTER", "SETSLOT", s, "NODE", toID)
		}
	}
	Eventually(c.t, clusterWait, "every node agreeing on slot "+s, func() bool {
		for _, n := range c.Nodes() {
			if n.running() && !c.ownerIs(n, slot, toID) {
				return false
			}
		}
		return true
	})
}

// ownerIs reports whether n's view of the cluster gives slot to id.
func (c *RedisCluster) ownerIs(n *Redis, slot int, id string) bool {
	out, err := n.Cli("CLUSTER", "NODES")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 8 && f[0] == id && slotsHave(f[8:], slot) {
			return true
		}
	}
	return false
}

// owns reports whether n serves slot, by its own view.
func (n *Redis) owns(slot int) bool {
	id := n.ID()
	out, err := n.Cli("CLUSTER", "NODES")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 8 && f[0] == id {
			return slotsHave(f[8:], slot)
		}
	}
	return false
}

// slotsHave reports whether CLUSTER NODES slot ranges ("0-5460", "7000")
// hold slot.
func slotsHave(ranges []string, slot int) bool {
	for _, r := range ranges {
		lo, hi, isRange := strings.Cut(r, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		if a <= slot && slot <= b {
			return true
		}
	}
	return false
}

func (c *RedisCluster) must(n *Redis, args ...string) {
	c.t.Helper()
	if out, err := n.Cli(args...); err != nil || strings.HasPrefix(out, "ERR") {
		c.t.Fatalf("%s on %s: %q %v", strings.Join(args[:2], " "), n.addr(), out, err)
	}
}

// ID returns the node's cluster id.
func (r *Redis) ID() string {
	r.t.Helper()
	id, err := r.Cli("CLUSTER", "MYID")
	if err != nil {
		r.t.Fatalf("CLUSTER MYID on %s: %v", r.addr(), err)
	}
	return strings.TrimSpace(id)
}

// Cli runs one command through redis-cli and returns its output: the
// whole reply, unlike Command, for replies of several lines.
func (r *Redis) Cli(args ...string) (string, error) {
	cmd := exec.Command("redis-cli", append([]string{"-h", "127.0.0.1", "-p", strconv.Itoa(r.port)}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// running reports whether the node's process is up (not killed).
func (r *Redis) running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cmd != nil
}

// ReplicaOf returns a running replica of primary.
func (c *RedisCluster) ReplicaOf(primary *Redis) *Redis {
	c.t.Helper()
	for _, n := range c.Nodes() {
		if role, _ := n.Cli("ROLE"); n.running() && strings.HasPrefix(role, "slave") &&
			strings.Contains(role, "\n"+strconv.Itoa(primary.port)+"\n") {
			return n
		}
	}
	c.t.Fatalf("no running replica of %s", primary.addr())
	return nil
}

// Kill kills every node with SIGKILL; their data is lost, their
// nodes.conf kept.
func (c *RedisCluster) Kill() {
	for _, n := range c.Nodes() {
		n.Kill()
	}
}

// Wipe removes every node's saved data (see Redis.Wipe): killed and
// started again, the cluster is empty.
func (c *RedisCluster) Wipe() {
	for _, n := range c.Nodes() {
		n.Wipe()
	}
}

// Start starts every node that is not running and waits until the
// cluster is ok again.
func (c *RedisCluster) Start() {
	c.t.Helper()
	for _, n := range c.Nodes() {
		if !n.running() {
			n.Start()
		}
	}
	c.WaitOK()
}

// Pause stops every node with SIGSTOP.
func (c *RedisCluster) Pause() {
	for _, n := range c.Nodes() {
		n.Pause()
	}
}

// Resume continues every paused node.
func (c *RedisCluster) Resume() {
	for _, n := range c.Nodes() {
		n.Resume()
	}
}

// Pings reports whether every node answers PING.
func (c *RedisCluster) Pings() bool {
	for _, n := range c.Nodes() {
		if !n.Pings() {
			return false
		}
	}
	return true
}

// Output returns what every node printed, for failure messages.
func (c *RedisCluster) Output() string {
	var b strings.Builder
	for _, n := range c.Nodes() {
		b.WriteString("--- " + n.addr() + " ---\n" + n.Output())
	}
	return b.String()
}

// Reshard moves every slot of from to to with redis-cli --cluster reshard,
// as an operator would, and waits until the cluster is ok.
func (c *RedisCluster) Reshard(from, to *Redis) {
	c.t.Helper()
	slots := 0
	out, err := from.Cli("CLUSTER", "NODES")
	if err != nil {
		c.t.Fatalf("CLUSTER NODES: %v", err)
	}
	id := from.ID()
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 8 && f[0] == id {
			for _, r := range f[8:] {
				lo, hi, isRange := strings.Cut(r, "-")
				a, _ := strconv.Atoi(lo)
				b := a
				if isRange {
					b, _ = strconv.Atoi(hi)
				}
				slots += b - a + 1
			}
		}
	}
	cmd := exec.Command("redis-cli", "--cluster", "reshard", from.addr(), "--cluster-from", id,
		"--cluster-to", to.ID(), "--cluster-slots", strconv.Itoa(slots), "--cluster-yes")
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("redis-cli --cluster reshard: %v\n%s", err, out)
	}
	c.WaitOK()
}
