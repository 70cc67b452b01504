package cluster

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/roostproject/roost/internal/testutil"
)

// duo is two roost nodes joined through one backend.
type duo struct {
	t      *testing.T
	redis  *testutil.Redis // the private redis-server of newDuo, else nil
	server testutil.Server // the private server of newDuoOnServer, else nil
	a, b   *node
}

// newDuo starts redis-server and two nodes on it, for the tests of what
// only Redis does (a paused Redis, its script cache).
func newDuo(t *testing.T, name string) *duo {
	r := testutil.StartRedis(t)
	d := newDuoAt(t, name, r.Reach(), r.Output)
	d.redis = r
	return d
}

// newDuoOn starts two nodes on a row of the backends table: the machine's
// Redis or NATS, or a private Redis Cluster that it starts.
func newDuoOn(t *testing.T, name string, b testutil.Backend) *duo {
	return newDuoAt(t, name, b.Start(t), func() string { return "" })
}

// newDuoOnServer starts the row's private server and two nodes on it, for
// a test that kills the server and starts it again.
func newDuoOnServer(t *testing.T, name string, b testutil.Backend) *duo {
	s := b.Server(t)
	d := newDuoAt(t, name, s.Reach(), s.Output)
	d.server = s
	return d
}

// newDuoAt starts two nodes on the backend r reaches, on a fresh prefix
// starting with name, and logs every process's output if the test fails.
func newDuoAt(t *testing.T, name string, r testutil.Reach, backendOutput func() string) *duo {
	bin := buildRoost(t)
	prefix := prefixFor(name)
	forgetPrefix(t, r, prefix)
	d := &duo{t: t}
	d.a = startNode(t, bin, "node A", r, prefix)
	d.b = startNode(t, bin, "node B", r, prefix)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s\n%s\n--- backend ---\n%s", d.a.logs(), d.b.logs(), backendOutput())
		}
	})
	return d
}

// onBackends runs f as a subtest on each row of testutil.Backends.
func onBackends(t *testing.T, f func(t *testing.T, b testutil.Backend)) {
	for _, b := range testutil.Backends {
		t.Run(b.Name, func(t *testing.T) { f(t, b) })
	}
}

// waitReady polls GET /ready on both nodes until it answers status with a
// body starting with prefix.
func (d *duo) waitReady(status int, prefix string) {
	d.t.Helper()
	waitNodes(d.t, []*node{d.a, d.b}, status, prefix)
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
