package testutil

import (
	"slices"
	"testing"
)

// Backend is one way for roost nodes to share a cluster's state, so that
// one test can run its scenario on each (as subtests named by Name).
type Backend struct {
	// Name names the subtest: "redis", "redis-cluster", "sentinel", "nats".
	Name string
	// Start finds the backend or starts a private one for t (stopped when
	// t ends) and returns how a node reaches it. A backend that is not
	// there stops the test with Needs.
	Start func(t testing.TB) Reach
	// Server starts a private server of the backend's kind for a test
	// that kills it and starts it again (nil: the row has none).
	Server func(t testing.TB) Server
}

// Server is a private backend that a fault test kills (SIGKILL, every
// process of it) and starts again on the same ports, empty: a Redis
// without persistence, a Redis Cluster's every node, or a nats-server
// whose JetStream store is lost with it.
type Server interface {
	Reach() Reach
	Kill()
	Start()
	Output() string
}

// Reach is how a node joins a backend.
type Reach struct {
	// Flags are roost serve's flags, such as --redis-url URL.
	Flags []string
	// URL is the URL the flags carry, for nodes started in the test's own
	// process.
	URL string
	// Private reports a backend started for this test alone, which leaves
	// nothing behind.
	Private bool
	// PrefixFlag is the flag that keeps a cluster's keys or subjects apart
	// from others' on the same backend: --redis-prefix, --nats-prefix.
	PrefixFlag string
}

// NodeFlags are the flags that join a node to the backend under prefix.
func (r Reach) NodeFlags(prefix string) []string {
	return append(slices.Clone(r.Flags), r.PrefixFlag, prefix)
}

// MachineRedisURL is the Redis every machine here runs, shared by tests
// that keep apart by their key prefixes.
const MachineRedisURL = "redis://127.0.0.1:6379"

// RedisBackends are the Redis rows of the table: the machine's Redis, a
// private Redis Cluster of three primaries, and a private primary with a
// replica behind a sentinel.
var RedisBackends = []Backend{redisRow, redisClusterRow, sentinelRow}

// Backends is the table the real-process cluster tests run on: the
// machine's Redis, a private Redis Cluster of three primaries, and a
// private NATS with JetStream (each row with a private server of its kind
// for the restart tests). The NATS is private rather than the machine's so
// that no test depends on a fixed address or leaves buckets behind.
var Backends = []Backend{redisRow, redisClusterRow, natsRow}

var (
	redisRow = Backend{Name: "redis", Start: machineRedis,
		Server: func(t testing.TB) Server { return StartRedis(t) }}
	redisClusterRow = Backend{Name: "redis-cluster",
		Start:  func(t testing.TB) Reach { return redisReach(StartRedisCluster(t, 3, 0).URL(), true) },
		Server: func(t testing.TB) Server { return StartRedisCluster(t, 3, 0) }}
	sentinelRow = Backend{Name: "sentinel",
		Start: func(t testing.TB) Reach { return redisReach(StartSentinel(t).URL(), true) }}
	natsRow = Backend{Name: "nats",
		Start:  func(t testing.TB) Reach { return natsReach(StartNATS(t).URL(), true) },
		Server: func(t testing.TB) Server { return natsServer{StartNATS(t)} }}
)

func redisReach(url string, private bool) Reach {
	return Reach{Flags: []string{"--redis-url", url}, URL: url, Private: private, PrefixFlag: "--redis-prefix"}
}

func natsReach(url string, private bool) Reach {
	return Reach{Flags: []string{"--nats-url", url}, URL: url, Private: private, PrefixFlag: "--nats-prefix"}
}

// Reach is how a node joins the private Redis; it runs without
// persistence, so a restart is empty.
func (r *Redis) Reach() Reach { return redisReach(r.URL(), true) }

// Reach is how a node joins the private Redis Cluster.
func (c *RedisCluster) Reach() Reach { return redisReach(c.URL(), true) }

// Reach is how a node joins the private nats-server.
func (n *NATS) Reach() Reach { return natsReach(n.URL(), true) }

// natsServer is a private nats-server as a Server: Kill loses its store
// too, so that a restart is as empty as Redis's.
type natsServer struct{ *NATS }

func (s natsServer) Kill() {
	s.NATS.Kill()
	s.Wipe()
}

// machineRedis checks that the machine's Redis answers.
func machineRedis(t testing.TB) Reach {
	t.Helper()
	r := &Redis{t: t, port: 6379}
	if !r.Pings() {
		Needs(t, "no redis at %s; the cluster tests need it", MachineRedisURL)
	}
	return redisReach(MachineRedisURL, false)
}

// RedisServer is a private Redis that a fault test stops, pauses and
// starts again: one redis-server (Redis), or every node of a Redis Cluster
// at once (RedisCluster).
type RedisServer interface {
	URL() string
	Reach() Reach
	Kill()
	Start()
	Pause()
	Resume()
	Pings() bool
	Output() string
}

var (
	_ RedisServer = (*Redis)(nil)
	_ RedisServer = (*RedisCluster)(nil)
	_ Server      = RedisServer(nil)
	_ Server      = natsServer{}
)

// RedisServers are the private Redis kinds the fault tests run on.
var RedisServers = []struct {
	Name  string
	Start func(t testing.TB) RedisServer
}{
	{"redis", func(t testing.TB) RedisServer { return StartRedis(t) }},
	{"redis-cluster", func(t testing.TB) RedisServer { return StartRedisCluster(t, 3, 0) }},
}
