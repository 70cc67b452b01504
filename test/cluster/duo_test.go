package cluster

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/testutil"
)

// duo is two roost nodes joined through a private redis-server, or a
// private Redis Cluster (then redis is nil).
type duo struct {
	t      *testing.T
	redis  *testutil.Redis
	server testutil.RedisServer // the same redis-server, or the cluster
	a, b   *node
}

// newDuo starts redis-server and two nodes on a fresh prefix starting with
// name, and logs every process's output if the test fails.
func newDuo(t *testing.T, name string) *duo {
	r := testutil.StartRedis(t)
	d := newDuoOn(t, name, r)
	d.redis = r
	return d
}

// newDuoOn is newDuo on a Redis the test started.
func newDuoOn(t *testing.T, name string, r testutil.RedisServer) *duo {
	bin := buildRoost(t)
	prefix := prefixFor(name)
	d := &duo{t: t, server: r}
	d.a = startNode(t, bin, "node A", r.URL(), prefix)
	d.b = startNode(t, bin, "node B", r.URL(), prefix)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s\n%s\n--- redis-server ---\n%s", d.a.logs(), d.b.logs(), r.Output())
		}
	})
	return d
}

// waitReady polls GET /ready on both nodes until it answers status with a
// body starting with prefix.
func (d *duo) waitReady(status int, prefix string) {
	d.t.Helper()
	for _, n := range []*node{d.a, d.b} {
		var got int
		var body string
		if !testutil.Poll(stateChange, func() bool {
			got, body = n.ready()
			return got == status && strings.HasPrefix(body, prefix)
		}) {
			d.t.Fatalf("GET /ready on %s = %d %q, want %d %q...", n.name, got, body, status, prefix)
		}
	}
}

// users returns the sorted member ids of a presence channel, from n's API.
func (d *duo) users(n *node, channel string) []string {
	status, body := n.api(http.MethodGet, "/channels/"+channel+"/users", nil, nil)
	var res struct {
		Users []struct {
			ID string `json:"id"`
		} `json:"users"`
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &res) != nil {
		return []string{fmt.Sprintf("HTTP %d %s", status, body)}
	}
	var ids []string
	for _, u := range res.Users {
		ids = append(ids, u.ID)
	}
	slices.Sort(ids)
	return ids
}

// subscriptions returns a channel's subscription_count from n's API, or -1.
func (d *duo) subscriptions(n *node, channel string) int {
	status, body := n.api(http.MethodGet, "/channels/"+channel, url.Values{"info": {"subscription_count"}}, nil)
	var res struct {
		Count int `json:"subscription_count"`
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &res) != nil {
		return -1
	}
	return res.Count
}
