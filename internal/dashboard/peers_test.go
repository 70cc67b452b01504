package dashboard

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/redisstore"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// TestOverviewListsEveryNodeOfTheCluster: two nodes sharing a Redis each
// show both nodes' figures, and a node that stopped sharing drops out.
func TestOverviewListsEveryNodeOfTheCluster(t *testing.T) {
	r := testutil.StartRedis(t)
	node := func(id string) func(*Config) {
		return func(c *Config) {
			n, err := cluster.Open(cluster.Settings{Prefix: "t", Deliver: func(*hub.Message) {}}, redisstore.Backend(r.URL()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { n.Close() })
			testutil.Eventually(t, 10*time.Second, "the node on Redis", func() bool { return n.Ready() == nil })
			c.Node, c.Board = id, n
			c.Interval = 20 * time.Millisecond
		}
	}
	a := newFixture(t, token, false, node("1"))
	b := newFixture(t, token, false, node("2"))
	b.d.limit.perSecond = 1 << 20
	nodes := func(f *fixture) string {
		_, body := f.request(t, "GET", "/dashboard/api/overview", "Bearer "+token, "")
		var o struct {
			Nodes []peerSample `json:"nodes"`
			Error string       `json:"cluster_error"`
		}
		json.Unmarshal([]byte(body), &o)
		ids := []string{}
		for _, n := range o.Nodes {
			ids = append(ids, n.Node)
		}
		return strings.Join(ids, ",") + o.Error
	}
	testutil.Eventually(t, 10*time.Second, "node 2 listing nodes 1 and 2", func() bool { return nodes(b) == "1,2" })
	a.d.Close()
	testutil.Eventually(t, 10*time.Second, "node 1 leaving", func() bool { return nodes(b) == "2" })
	// A node that stops without leaving (killed) drops out once its last
	// sample is older than peerTTL.
	a = newFixture(t, token, false, node("1"))
	testutil.Eventually(t, 10*time.Second, "node 1 back", func() bool { return nodes(b) == "1,2" })
	a.d.history.stop()
	// Node 1's last sample ages past peerTTL: node 2's clock is moved
	// forward by all of it but half a second, which node 1's last sample
	// soon passes while node 2's own, renewed every 20 ms, never does.
	b.d.cfg.Now = func() time.Time { return time.Now().Add(peerTTL - 500*time.Millisecond) }
	testutil.Eventually(t, 10*time.Second, "node 1 dropping out", func() bool { return nodes(b) == "2" })
}
