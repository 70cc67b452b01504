package chaos

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
)

// The app every node serves.
const (
	appID     = "chaos"
	appKey    = "chaos-key"
	appSecret = "chaos-secret"
)

// nodes is how many roost processes each run drives.
const nodes = 3

// store is the backend of one run: a private server the faults act on,
// and how node i reaches it (through its own proxy where the backend
// allows one, so that one node's link can be cut alone).
type store interface {
	flags(i int) []string
	pause()
	resume()
	kill()     // SIGKILL, losing the data
	shutdown() // stop, keeping the data for start
	start()
	// partitions reports whether cut and heal can cut node i's link alone.
	partitions() bool
	cut(i int)
	heal(i int)
}

// rig is the cluster under test: its nodes, its store, its webhook
// receiver.
type rig struct {
	t     *testing.T
	bin   string
	store store
	nodes []*testutil.Roost
	alive []bool
	hooks *hooks
	api   testutil.API
}

// startRig starts the nodes of a run on st, each with the same config.
func startRig(t *testing.T, st store) *rig {
	r := &rig{t: t, bin: testutil.RoostBinary(t), store: st, hooks: startHooks(t),
		api: testutil.API{ID: appID, Key: appKey, Secret: appSecret, HTTP: &http.Client{Timeout: 10 * time.Second}}}
	cfg := r.config()
	for i := range nodes {
		args := append([]string{"--config", cfg}, st.flags(i)...)
		r.nodes = append(r.nodes, testutil.StartRoost(t, r.bin, fmt.Sprintf("node %d", i), args...))
		r.alive = append(r.alive, true)
	}
	return r
}

// webhookDelay is the nodes' webhooks.delay: short, so that quiet periods
// are short, and still longer than a subscription's round trip.
const webhookDelay = "1s"

// config writes the nodes' config file: one app with client events,
// subscription counts and every webhook sent to the test's receiver.
func (r *rig) config() string {
	yaml := fmt.Sprintf(`webhooks:
  delay: %s
  batch_wait: 50ms
apps:
  - id: %q
    key: %q
    secret: %q
    client_events: true
    subscription_count: true
    webhooks:
      - url: %s
`, webhookDelay, appID, appKey, appSecret, r.hooks.url)
	path := filepath.Join(r.t.TempDir(), "roost.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		r.t.Fatal(err)
	}
	return path
}

// wsURL is the Pusher endpoint of node i.
func (r *rig) wsURL(i int) string {
	return "ws" + strings.TrimPrefix(r.nodes[i].URL, "http") + "/app/" + appKey + "?protocol=7&client=go&version=8.6.0&flash=false"
}

// ready reports whether every live node answers GET /ready with 200.
func (r *rig) ready() bool {
	for i, n := range r.nodes {
		if !r.alive[i] {
			continue
		}
		res, err := r.api.HTTP.Get(n.URL + "/ready")
		if err != nil {
			return false
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return false
		}
	}
	return true
}

// webhookSeries are the gauges of the app's webhook events a node has
// not delivered: those waiting in its queue, and its records in the
// cluster's outbox (queued, held for the delay, or in a request not
// answered yet).
var webhookSeries = []string{
	fmt.Sprintf(`roost_webhook_queue_depth{app=%q}`, appID),
	fmt.Sprintf(`roost_webhook_outbox_depth{app=%q}`, appID),
}

// webhooksDrained reports whether every live node has delivered every
// webhook event it has (a node that does not answer has not).
func (r *rig) webhooksDrained() bool {
	for i, n := range r.nodes {
		if !r.alive[i] {
			continue
		}
		for _, s := range webhookSeries {
			if n.Metric(s) != 0 {
				return false
			}
		}
	}
	return true
}

// logs returns every node's stderr, for a failure.
func (r *rig) logs() string {
	var b strings.Builder
	for _, n := range r.nodes {
		b.WriteString(n.Logs())
	}
	return b.String()
}

// proxies are one TCP proxy per node to a backend's one address, so
// that one node's link can be cut while the others keep theirs.
type proxies []*testutil.Proxy

func newProxies(t *testing.T, addr string) proxies {
	var p proxies
	for range nodes {
		p = append(p, testutil.NewProxy(t, addr))
	}
	return p
}

func (p proxies) partitions() bool { return true }
func (p proxies) cut(i int)        { p[i].Cut() }
func (p proxies) heal(i int)       { p[i].Restore() }

// redisStore is a private redis-server, reached by each node through its
// own proxy.
type redisStore struct {
	s *testutil.Redis
	proxies
}

func newRedisStore(t *testing.T) store {
	s := testutil.StartRedis(t)
	return &redisStore{s, newProxies(t, s.Addr())}
}

func (s *redisStore) flags(i int) []string {
	return []string{"--redis-url", "redis://" + s.proxies[i].Addr, "--redis-prefix", "chaos"}
}
func (s *redisStore) pause()    { s.s.Pause() }
func (s *redisStore) resume()   { s.s.Resume() }
func (s *redisStore) kill()     { s.s.Kill(); s.s.Wipe() } // not the data of an earlier SHUTDOWN SAVE
func (s *redisStore) shutdown() { s.s.Shutdown(true) }
func (s *redisStore) start()    { s.s.Start() }

// clusterStore is a private Redis Cluster of three primaries. A node's
// link cannot be cut alone: a cluster client connects to the addresses
// the Redis nodes announce, which are the same for every roost node, so a
// proxy per roost node cannot stand between them (see exceptions).
type clusterStore struct{ c *testutil.RedisCluster }

func newClusterStore(t *testing.T) store {
	return clusterStore{testutil.StartRedisCluster(t, 3, 0)}
}

func (s clusterStore) flags(int) []string {
	return []string{"--redis-url", s.c.URL(), "--redis-prefix", "chaos"}
}
func (s clusterStore) pause()  { s.c.Pause() }
func (s clusterStore) resume() { s.c.Resume() }
func (s clusterStore) kill()   { s.c.Kill(); s.c.Wipe() }
func (s clusterStore) shutdown() {
	for _, n := range s.c.Nodes() {
		n.Shutdown(true)
	}
}
func (s clusterStore) start()           { s.c.Start() }
func (s clusterStore) partitions() bool { return false }
func (s clusterStore) cut(int)          {}
func (s clusterStore) heal(int)         {}

// natsStore is a private nats-server with JetStream, reached by each node
// through its own proxy.
type natsStore struct {
	s *testutil.NATS
	proxies
}

func newNATSStore(t *testing.T) store {
	s := testutil.StartNATS(t)
	return &natsStore{s, newProxies(t, s.Addr())}
}

func (s *natsStore) flags(i int) []string {
	return []string{"--nats-url", "nats://" + s.proxies[i].Addr, "--nats-prefix", "chaos"}
}
func (s *natsStore) pause()    { s.s.Pause() }
func (s *natsStore) resume()   { s.s.Resume() }
func (s *natsStore) kill()     { s.s.Kill(); s.s.Wipe() }
func (s *natsStore) shutdown() { s.s.Kill() } // its store stays on disk
func (s *natsStore) start()    { s.s.Start() }
