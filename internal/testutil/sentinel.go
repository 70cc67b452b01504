package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// SentinelMaster is the name a private Sentinel knows its primary by.
const SentinelMaster = "roostmaster"

// Sentinel is a private primary, a replica and one sentinel watching them,
// on free loopback ports. The sentinel takes a primary that stops
// answering for SentinelDownAfter for failed and promotes the replica.
type Sentinel struct {
	t                testing.TB
	Primary, Replica *Redis
	sentinel         *Redis
}

// SentinelDownAfter is the sentinel's down-after-milliseconds.
const SentinelDownAfter = time.Second

// StartSentinel starts the three processes and waits until the sentinel
// knows the replica, or stops the test (Needs) without redis-server or
// redis-cli. Everything is killed when the test ends.
func StartSentinel(t testing.TB) *Sentinel {
	t.Helper()
	bin := redisBinary(t)
	if _, err := exec.LookPath("redis-cli"); err != nil {
		Needs(t, "no redis-cli binary on PATH (%v)", err)
	}
	s := &Sentinel{t: t, Primary: startRedis(t, bin)}
	s.Replica = startRedis(t, bin, "--replicaof", "127.0.0.1", strconv.Itoa(s.Primary.port))
	conf := filepath.Join(t.TempDir(), "sentinel.conf")
	text := fmt.Sprintf("sentinel monitor %s 127.0.0.1 %d 1\n"+
		"sentinel down-after-milliseconds %s %d\nsentinel failover-timeout %s 10000\n",
		SentinelMaster, s.Primary.port, SentinelMaster, SentinelDownAfter/time.Millisecond, SentinelMaster)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s.sentinel = startRedisConf(t, bin, conf, false, "--sentinel")
	Eventually(t, clusterWait, "the sentinel knowing the replica, in sync", func() bool {
		out, _ := s.sentinel.Cli("SENTINEL", "REPLICAS", SentinelMaster)
		return strings.Contains(out, strconv.Itoa(s.Replica.port)) && !strings.Contains(out, "s_down") &&
			strings.Contains(out, "master-link-status\nok\n")
	})
	return s
}

// URL is the redis+sentinel:// URL of the primary.
func (s *Sentinel) URL() string {
	return "redis+sentinel://" + s.sentinel.addr() + "/" + SentinelMaster
}

// Failover has the sentinel promote the replica now, without waiting for
// the primary to fail, and waits until it names the new primary.
func (s *Sentinel) Failover() {
	s.t.Helper()
	// NOGOODSLAVE while the sentinel's view of the replica is older than
	// it accepts: asked again until it agrees.
	Eventually(s.t, clusterWait, "the sentinel accepting SENTINEL FAILOVER", func() bool {
		out, _ := s.sentinel.Cli("SENTINEL", "FAILOVER", SentinelMaster)
		return strings.HasPrefix(out, "OK")
	})
	s.WaitPrimary(s.Replica)
}

// WaitPrimary waits until the sentinel names n as the primary.
func (s *Sentinel) WaitPrimary(n *Redis) {
	s.t.Helper()
	Eventually(s.t, clusterWait, "the sentinel naming "+n.addr()+" primary", func() bool {
		out, _ := s.sentinel.Cli("SENTINEL", "GET-MASTER-ADDR-BY-NAME", SentinelMaster)
		return strings.Contains(out, strconv.Itoa(n.port))
	})
}
