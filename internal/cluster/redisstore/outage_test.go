package redisstore

import (
	"context"
	"fmt"
	"net"
	"slices"
	"testing"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// unreachable starts a node whose Redis address refuses connections.
func unreachable(t *testing.T) *node {
	addr := unreachableURL(t)
	r := start(t, addr, cluster.Settings{Node: 1, Apps: []string{"app"}, Deliver: func(*hub.Message) {}})
	t.Cleanup(func() { r.Close() })
	if r.Ready() == nil {
		t.Fatalf("a node without Redis at %s says it is ready", addr)
	}
	return r
}

// unreachableURL names a Redis address that refuses connections.
func unreachableURL(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return "redis://" + l.Addr().String()
}

// TestOutageAnswersLikeOneNode: while Redis cannot be reached, presence,
// users and counts answer with this node's own state, as a single node would.
func TestOutageAnswersLikeOneNode(t *testing.T) {
	r := unreachable(t)
	p := r.Presence
	ctx := context.Background()
	for i, step := range []struct {
		user string
		want bool
	}{{"u1", true}, {"u1", false}, {"u2", true}} {
		if first, err := p.Join(ctx, "app", "presence-x", hub.Member{ID: step.user, Info: fmt.Sprint(i)}, 2); err != nil || first != step.want {
			t.Fatalf("join %d (%s): first %v, err %v; want %v", i, step.user, first, err, step.want)
		}
	}
	if _, err := p.Join(ctx, "app", "presence-x", hub.Member{ID: "u3"}, 2); err != hub.ErrChannelFull {
		t.Fatalf("third member over a limit of 2: %v, want ErrChannelFull", err)
	}
	if m, err := p.Members(ctx, "app", "presence-x"); err != nil || !slices.Equal(m, []hub.Member{{ID: "u1", Info: "0"}, {ID: "u2", Info: "2"}}) {
		t.Fatalf("members %+v %v", m, err)
	}
	for range 2 {
		if last, err := p.Leave(ctx, "app", "presence-x", "u1"); last || err != nil {
			t.Fatalf("a leave while Redis is away announced a departure: %v %v", last, err)
		}
	}
	if first, _ := r.Users.SignIn(ctx, "app", "a"); !first {
		t.Fatal("a sign-in does not report the user's first connection")
	}
	if first, _ := r.Users.SignIn(ctx, "app", "a"); first {
		t.Fatal("a second sign-in reports the user's first connection")
	}
	if on, err := r.Users.Online(ctx, "app", []string{"a", "b"}); err != nil || !slices.Equal(on, []string{"a"}) {
		t.Fatalf("online %v %v, want [a]", on, err)
	}
	r.Counts.Subscribed("app", "c", 2)
	n, _ := r.Counts.Count(ctx, "app", "c")
	if all, _ := r.Counts.Channels(ctx, "app", ""); n != 2 || all["c"] != 2 || len(all) != 1 {
		t.Fatalf("count %d, channels %v; want 2 and c:2", n, all)
	}
}

// TestResyncWritesTheLocalShares: when Redis has lost a node's state, the
// node writes its members, users and counts again, as the other nodes see,
// and drops a share Redis holds that the node no longer has.
func TestResyncWritesTheLocalShares(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, _ := nodes(t, url, 2, 0)
		a, b := rs[0], rs[1]
		ctx := context.Background()
		a.Presence.Join(ctx, "app", "presence-r", hub.Member{ID: "u", Info: `{"n":1}`}, 0)
		// As if Redis had missed a leave: a share of a's that a does not have.
		a.Store.Change(ctx, &cluster.Change{Kind: cluster.Join, App: "app", Channel: "presence-r", Member: hub.Member{ID: "stale"}})
		a.Users.SignIn(ctx, "app", "u")
		a.Counts.Subscribed("app", "presence-r", 1)
		testutil.Eventually(t, redisWait, "the count written", func() bool {
			n, _ := b.Counts.Count(ctx, "app", "presence-r")
			return n == 1
		})
		for _, k := range []string{a.Store.usersKey("app"), a.Store.channelsKey("app"), a.Store.nodeKey("node", a.Store.node)} {
			if err := a.Store.rdb.Del(ctx, k).Err(); err != nil { // one key a call: they are on three slots
				t.Fatal(err)
			}
		}
		a.Link().Suspect()
		testutil.Eventually(t, redisWait, "the state written again", func() bool {
			m, _ := b.Presence.Members(ctx, "app", "presence-r")
			on, _ := b.Users.Online(ctx, "app", []string{"u"})
			n, _ := b.Counts.Count(ctx, "app", "presence-r")
			return slices.Equal(m, []hub.Member{{ID: "u", Info: `{"n":1}`}}) && len(on) == 1 && n == 1
		})
	})
}

// TestNodeRecordsExpire: the node list and a node's list of its presence
// channels carry an expiry that the heartbeat refreshes, so that a cluster
// stopped whole leaves them behind for RecordTTL at most.
func TestNodeRecordsExpire(t *testing.T) {
	rs, _ := nodes(t, testutil.MachineRedisURL, 1, 0)
	a := rs[0]
	ctx := context.Background()
	a.Presence.Join(ctx, "app", "presence-e", hub.Member{ID: "u"}, 0)
	testutil.Eventually(t, redisWait, "a ready", func() bool { return a.Ready() == nil })
	for _, k := range []string{a.Store.nodeKey("nodes"), a.Store.nodeKey("node-presence", a.Store.node)} {
		ttl, err := a.Store.rdb.PTTL(ctx, k).Result()
		if err != nil || ttl <= 0 || ttl > cluster.RecordTTL {
			t.Errorf("%s: expiry %v (err %v), want one within %v", k, ttl, err, cluster.RecordTTL)
		}
	}
}
