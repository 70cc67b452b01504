package cluster

import (
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
)

// stateChange bounds how long a node may take to notice that Redis went
// away or came back: one heartbeat period (5 s) plus its 3 s wait for a
// reply, twice, with room to spare; no assertion depends on it.
const stateChange = 20 * time.Second

// crossRetry is how long crossUntilDelivered waits for each event it
// publishes before it publishes another.
const crossRetry = 100 * time.Millisecond

// inOrder is how many events must arrive complete and in order once
// cross-node delivery has resumed.
const inOrder = 20

// outage is two nodes over a private Redis that the test restarts, with a
// subscriber of "news" on each.
type outage struct {
	*duo
	sA, sB *testutil.Client
}

// TestRedisRestart kills Redis (one server, or every node of a Redis
// Cluster) under a two-node cluster and starts it again on the same ports,
// empty: local delivery never stops, GET /ready says 503 during the outage
// and 200 after, and delivery across the nodes resumes (and presence and
// counts are written again) without restarting roost.
func TestRedisRestart(t *testing.T) {
	for _, kind := range testutil.RedisServers {
		t.Run(kind.Name, func(t *testing.T) {
			o := &outage{duo: newDuoOn(t, "roost-restart", kind.Start(t))}
			o.before()
			o.server.Kill()
			o.waitReady(http.StatusServiceUnavailable, "degraded:")
			o.during()
			o.server.Start()
			back := time.Now()
			o.waitReady(http.StatusOK, "ready")
			t.Logf("GET /ready answered 200 on both nodes %v after Redis answered PING again", time.Since(back).Round(time.Millisecond))
			o.resumes()
			o.stateRewritten()
			if _, ok := o.sB.Find(testutil.Named("during-a")); !ok {
				t.Logf("note: %q, published on A during the outage, never reached B (lost, not buffered)", "during-a")
			}
		})
	}
}

// before joins clients on both nodes and checks delivery across them.
func (o *outage) before() {
	o.waitReady(http.StatusOK, "ready")
	o.sA = dial(o.t, o.a, "sA")
	o.sA.Subscribe("news")
	o.sB = dial(o.t, o.b, "sB")
	o.sB.Subscribe("news")
	subscribePresence(o.t, dial(o.t, o.a, "member pa"), "presence-room", "pa")
	subscribePresence(o.t, dial(o.t, o.b, "member pb"), "presence-room", "pb")
	o.b.trigger("news", "before", "from B")
	o.sA.Next(testutil.Named("before"))
	o.sB.Next(testutil.Named("before"))
}

// during checks that each node still serves its own clients while Redis is
// away: publishes, new connections, new subscriptions, presence joins.
func (o *outage) during() {
	o.a.trigger("news", "during-a", "from A")
	o.sA.Next(testutil.Named("during-a"))
	late := dial(o.t, o.a, "sA2")
	late.Subscribe("news")
	o.a.trigger("news", "during-a2", "from A")
	late.Next(testutil.Named("during-a2"))
	o.sA.Next(testutil.Named("during-a2"))
	o.b.trigger("news", "during-b", "from B")
	o.sB.Next(testutil.Named("during-b"))
	subscribePresence(o.t, dial(o.t, o.a, "member pc"), "presence-room", "pc")
}

// resumes waits until an event published on one node reaches the other,
// both ways, then checks that no later event is lost or reordered.
func (o *outage) resumes() {
	o.crossUntilDelivered(o.a, o.sB, "after-a")
	o.crossUntilDelivered(o.b, o.sA, "after-b")
	for i := range inOrder {
		o.a.trigger("news", "seq", strconv.Itoa(i))
	}
	want := make([]string, inOrder)
	for i := range want {
		want[i] = strconv.Itoa(i)
	}
	for len(o.sB.Events("news", "seq")) < inOrder {
		o.sB.Next(inChannel("news", "seq"))
	}
	if got := o.sB.Events("news", "seq"); !slices.Equal(got, want) {
		o.t.Fatalf("seq events at sB after the restart = %v, want %v", got, want)
	}
}

// crossUntilDelivered publishes on from until sub (on the other node) gets
// one: events sent before that node has subscribed again may be lost.
func (o *outage) crossUntilDelivered(from *node, sub *testutil.Client, event string) {
	o.t.Helper()
	sent := 0
	if !testutil.Poll(stateChange, func() bool {
		sent++
		from.trigger("news", event, strconv.Itoa(sent))
		_, ok := sub.Await(crossRetry, testutil.Named(event))
		return ok
	}) {
		o.t.Fatalf("%s: none of %d %q events published on %s after the restart arrived; got %s",
			sub.Name, sent, event, from.name, sub.Describe())
	}
	o.t.Logf("%q: %d published on %s before the first reached %s", event, sent, from.name, sub.Name)
}

// stateRewritten checks that the nodes wrote their presence members and
// subscription counts into the empty Redis again.
func (o *outage) stateRewritten() {
	want := []string{"pa", "pb", "pc"}
	for _, n := range []*node{o.a, o.b} {
		var got []string
		if !testutil.Poll(stateChange, func() bool { got = o.users(n, "presence-room"); return slices.Equal(got, want) }) {
			o.t.Fatalf("members of presence-room from %s = %v, want %v", n.name, got, want)
		}
		var count int
		if !testutil.Poll(stateChange, func() bool { count = o.subscriptions(n, "news"); return count == 3 }) {
			o.t.Fatalf("subscription_count of news from %s = %d, want 3 (sA, sA2, sB)", n.name, count)
		}
	}
}
