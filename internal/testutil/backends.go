package testutil

import "testing"

// Backend is one way for roost nodes to share a cluster's state, so that
// one test can run its scenario on each (as subtests named by Name).
type Backend struct {
	// Name names the subtest: "redis", "redis-cluster", "sentinel".
	Name string
	// Start finds the backend or starts a private one for t (stopped when
	// t ends) and returns how a node reaches it. A backend that is not
	// there stops the test with Needs.
	Start func(t testing.TB) Reach
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
}

// MachineRedisURL is the Redis every machine here runs, shared by tests
// that keep apart by their key prefixes.
const MachineRedisURL = "redis://127.0.0.1:6379"

// RedisBackends are the Redis rows of the table: the machine's Redis, a
// private Redis Cluster of three primaries, and a private primary with a
// replica behind a sentinel.
var RedisBackends = []Backend{
	{Name: "redis", Start: machineRedis},
	{Name: "redis-cluster", Start: func(t testing.TB) Reach {
		return redisReach(StartRedisCluster(t, 3, 0).URL(), true)
	}},
	{Name: "sentinel", Start: func(t testing.TB) Reach { return redisReach(StartSentinel(t).URL(), true) }},
}

func redisReach(url string, private bool) Reach {
	return Reach{Flags: []string{"--redis-url", url}, URL: url, Private: private}
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
)

// RedisServers are the private Redis kinds the fault tests run on.
var RedisServers = []struct {
	Name  string
	Start func(t testing.TB) RedisServer
}{
	{"redis", func(t testing.TB) RedisServer { return StartRedis(t) }},
	{"redis-cluster", func(t testing.TB) RedisServer { return StartRedisCluster(t, 3, 0) }},
}
