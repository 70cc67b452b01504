package cluster

import (
	"context"
	"fmt"
	"net"
	"slices"
	"testing"

	"github.com/roostproject/roost/internal/hub"
)

// unreachable starts a node whose Redis address refuses connections.
func unreachable(t *testing.T) *Redis {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	r, err := New(Config{URL: "redis://" + addr, Node: 1, Apps: []string{"app"}, Deliver: func(*hub.Message) {}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	if r.Ready() == nil {
		t.Fatalf("a node without Redis at %s says it is ready", addr)
	}
	return r
}

// TestOutageAnswersLikeOneNode: while Redis cannot be reached, presence,
// users and counts answer with this node's own state, as a single node would.
func TestOutageAnswersLikeOneNode(t *testing.T) {
	r := unreachable(t)
	p := &r.presence
	for i, step := range []struct {
		user string
		want bool
	}{{"u1", true}, {"u1", false}, {"u2", true}} {
		if first, err := p.Join("app", "presence-x", hub.Member{ID: step.user, Info: fmt.Sprint(i)}, 2); err != nil || first != step.want {
			t.Fatalf("join %d (%s): first %v, err %v; want %v", i, step.user, first, err, step.want)
		}
	}
	if _, err := p.Join("app", "presence-x", hub.Member{ID: "u3"}, 2); err != hub.ErrChannelFull {
		t.Fatalf("third member over a limit of 2: %v, want ErrChannelFull", err)
	}
	if m := p.Members("app", "presence-x"); !slices.Equal(m, []hub.Member{{ID: "u1", Info: "0"}, {ID: "u2", Info: "2"}}) {
		t.Fatalf("members %+v", m)
	}
	if p.Leave("app", "presence-x", "u1") || !p.Leave("app", "presence-x", "u1") {
		t.Fatal("member_removed due at the wrong leave of a user with two connections")
	}
	if !r.users.SignIn("app", "a") || r.users.SignIn("app", "a") {
		t.Fatal("sign-ins do not report the user's first connection")
	}
	if on := r.users.Online("app", []string{"a", "b"}); !slices.Equal(on, []string{"a"}) {
		t.Fatalf("online %v, want [a]", on)
	}
	r.counts.Subscribed("app", "c", 2)
	if n, all := r.counts.Count("app", "c"), r.counts.Channels("app", ""); n != 2 || all["c"] != 2 || len(all) != 1 {
		t.Fatalf("count %d, channels %v; want 2 and c:2", n, all)
	}
}

// TestResyncWritesTheLocalShares: when Redis has lost a node's state, the
// node writes its members, users and counts again, as the other nodes see.
func TestResyncWritesTheLocalShares(t *testing.T) {
	rs, _ := nodes(t, 2, 0)
	a, b := rs[0], rs[1]
	a.presence.Join("app", "presence-r", hub.Member{ID: "u", Info: `{"n":1}`}, 0)
	a.users.SignIn("app", "u")
	a.counts.Subscribed("app", "presence-r", 1)
	a.counts.flush()
	keys := []string{a.presenceKey("app", "presence-r"), a.usersKey("app"), a.channelsKey("app"), a.key("node", a.node)}
	if err := a.rdb.Del(context.Background(), keys...).Err(); err != nil {
		t.Fatal(err)
	}
	if len(b.presence.Members("app", "presence-r")) != 0 {
		t.Fatal("the state was not deleted")
	}
	a.heartbeat()
	if m := b.presence.Members("app", "presence-r"); !slices.Equal(m, []hub.Member{{ID: "u", Info: `{"n":1}`}}) {
		t.Fatalf("members after resync: %+v", m)
	}
	if on := b.users.Online("app", []string{"u"}); len(on) != 1 {
		t.Fatal("the signed-in user was not written again")
	}
	if n := b.counts.Count("app", "presence-r"); n != 1 {
		t.Fatalf("count after resync %d, want 1", n)
	}
}
