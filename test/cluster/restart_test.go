package cluster

import (
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
)

// stateChange bounds how long a node may take to notice that its backend went
// away or came back: one heartbeat period (5 s) plus its 3 s wait for a
// reply, twice, with room to spare; no assertion depends on it.
const stateChange = 20 * time.Second

// inOrder is how many events must arrive complete and in order once
// cross-node delivery has resumed.
const inOrder = 20

// outage is two nodes over a private backend server that the test
// restarts, with a subscriber of "news" on each.
type outage struct {
	*duo
	sA, sB *testutil.Client
}

// TestBackendRestart kills the backend under a two-node cluster (one
// redis-server, every node of a Redis Cluster, or a nats-server with its
// JetStream store) and starts it again on the same ports, empty: local
// delivery never stops, GET /ready says 503 during the outage and 200
// after, every event published during the outage reaches the other node
// once after it (each node holds its outbox until the others have
// subscribed again), delivery across the nodes resumes with the first
// event published, and presence and counts are written again, without
// restarting roost. It runs on a private server of each row of
// testutil.Backends.
func TestBackendRestart(t *testing.T) {
	onBackends(t, func(t *testing.T, b testutil.Backend) {
		o := &outage{duo: newDuoOnServer(t, "roost-restart", b)}
		o.before()
		o.server.Kill()
		o.waitReady(http.StatusServiceUnavailable, "degraded:")
		o.during()
		o.server.Start()
		back := time.Now()
		o.waitReady(http.StatusOK, "ready")
		t.Logf("GET /ready answered 200 on both nodes %v after the backend answered again", time.Since(back).Round(time.Millisecond))
		o.resumes()
		o.stateRewritten()
	})
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

// during checks that each node still serves its own clients while the backend is
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

// resumes publishes one event on each node once both are ready and checks
// what reached the other node: the events published during the outage and
// this one, each exactly once; then that no later event is lost or
// reordered.
func (o *outage) resumes() {
	o.a.trigger("news", "after-a", "from A")
	o.b.trigger("news", "after-b", "from B")
	o.sB.Next(testutil.Named("after-a"))
	o.sA.Next(testutil.Named("after-b"))
	o.deliveredOnce(o.sB, "during-a", "during-a2", "after-a")
	o.deliveredOnce(o.sA, "during-b", "after-b")
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

// deliveredOnce fails for each of events on "news" that sub did not get
// exactly once. The node that published them wrote them in order, so once
// the last has arrived every earlier one that was not lost has too.
func (o *outage) deliveredOnce(sub *testutil.Client, events ...string) {
	o.t.Helper()
	for _, e := range events {
		if got := len(sub.Events("news", e)); got != 1 {
			o.t.Errorf("%s got %q %d times, want once (published on the other node, answered 200)", sub.Name, e, got)
		}
	}
}

// stateRewritten checks that the nodes wrote their presence members and
// subscription counts into the empty backend again.
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
