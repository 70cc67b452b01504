package cluster

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
)

// The timing of the outbox tests' nodes: a short heartbeat and delay, so
// that a killed node is reaped and its held events due within seconds.
const (
	hookNodeTTL = 2 * time.Second
	hookDelay   = 2 * time.Second
	hookWait    = 30 * time.Second // bounds every wait; no assertion depends on it
)

// startHookNode is startNode with the app's webhooks going to url, and the
// short timing above but for its node_ttl, ttl.
func startHookNode(t *testing.T, bin, name string, r testutil.Reach, prefix, url string, ttl time.Duration) *node {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "roost.yaml")
	yaml := fmt.Sprintf(`node_ttl: %s
apps:
  - id: %q
    key: %q
    secret: %q
    client_events: true
    webhooks: [{url: %q}]
webhooks: {delay: %s, batch_wait: 50ms, timeout: 1s, retry_for: 1m}
`, ttl, appID, appKey, appSecret, url, hookDelay)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	p := testutil.StartRoost(t, bin, name, append([]string{"--config", cfg}, r.NodeFlags(prefix)...)...)
	return &node{Roost: p, t: t, name: name, url: p.URL,
		rest: testutil.API{ID: appID, Key: appKey, Secret: appSecret, HTTP: &http.Client{Timeout: 10 * time.Second}}}
}

// hookDuo is two nodes with webhooks to one receiver, over one backend.
type hookDuo struct {
	t      *testing.T
	recv   *receiver
	a, b   *node
	reach  testutil.Reach // the backend
	prefix string         // the nodes' prefix on it
}

func newHookDuo(t *testing.T, name string, r testutil.Reach, backendOutput func() string) *hookDuo {
	return newHookDuoTTL(t, name, r, backendOutput, hookNodeTTL)
}

// newHookDuoTTL is newHookDuo with the nodes' node_ttl ttl.
func newHookDuoTTL(t *testing.T, name string, r testutil.Reach, backendOutput func() string, ttl time.Duration) *hookDuo {
	bin := buildRoost(t)
	prefix := prefixFor(name)
	forgetPrefix(t, r, prefix)
	d := &hookDuo{t: t, recv: newReceiver(t), reach: r, prefix: prefix}
	d.a = startHookNode(t, bin, "node A", r, prefix, d.recv.URL, ttl)
	d.b = startHookNode(t, bin, "node B", r, prefix, d.recv.URL, ttl)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s\n%s\n--- backend ---\n%s", d.a.logs(), d.b.logs(), backendOutput())
		}
	})
	waitNodes(t, []*node{d.a, d.b}, http.StatusOK, "ready")
	return d
}

// outboxSeries is the outbox depth of the app on a node.
var outboxSeries = fmt.Sprintf(`roost_webhook_outbox_depth{app="%s"}`, appID)

// queueOnA makes node A hold undelivered events while the receiver
// refuses everything: channel_occupied of q-0, q-1, q-2 and held
// (queued, retried) and channel_vacated of held (in its delay). It
// returns the events the cluster owes the receiver once A is dead: those,
// and channel_vacated of q-0..q-2 from the node that reaps A.
func (d *hookDuo) queueOnA() []string {
	d.recv.refusing.Store(true)
	c := dial(d.t, d.a, "client on A")
	want := []string{"channel_occupied held", "channel_vacated held"}
	for i := range 3 {
		ch := "q-" + strconv.Itoa(i)
		c.Subscribe(ch)
		want = append(want, "channel_occupied "+ch, "channel_vacated "+ch)
	}
	c.Subscribe("held")
	time.Sleep(300 * time.Millisecond) // past a count flush (100 ms), so that held is occupied before it is vacated
	c.Send(`{"event":"pusher:unsubscribe","data":{"channel":"held"}}`)
	if !testutil.Poll(hookWait, func() bool { return d.a.Metric(outboxSeries) == 5 }) {
		d.t.Fatalf("node A's outbox depth %v, want 5 (4 queued, 1 held)", d.a.Metric(outboxSeries))
	}
	slices.Sort(want)
	return want
}

// awaitAll accepts every request from now on and waits until the
// receiver has every event of want, then checks it has nothing else, no
// duplicate (nothing was accepted before the kill, so nothing was in
// flight), and each channel's events in order.
func (d *hookDuo) awaitAll(want []string, since time.Time) {
	d.recv.refusing.Store(false)
	var got []hooked
	var dupes int
	done := testutil.Poll(hookWait, func() bool {
		got, dupes = d.recv.delivered()
		return len(distinct(got)) >= len(want)
	})
	d.t.Logf("every event delivered %v after node A was killed; %d refused requests before", time.Since(since).Round(time.Millisecond), d.recv.refused)
	if !done || !slices.Equal(distinct(got), want) {
		d.t.Fatalf("delivered %v,\nwant %v", distinct(got), want)
	}
	if len(got) != len(want) || dupes != 0 {
		d.t.Fatalf("%d events delivered for %d distinct, %d duplicates: %v", len(got), len(want), dupes, got)
	}
	if !before(got, "channel_occupied held", "channel_vacated held") {
		d.t.Fatalf("held's events out of order: %v", got)
	}
}

// TestKilledNodesWebhooksAreDelivered: a node killed with SIGKILL while
// it holds queued webhook events (the receiver refusing them) and one in
// its delay; once its heartbeat lapses, the node that reaps it delivers
// every one, exactly once, the held one after its delay, with the
// departures the death causes. It runs on every row of testutil.Backends.
func TestKilledNodesWebhooksAreDelivered(t *testing.T) {
	onBackends(t, func(t *testing.T, b testutil.Backend) {
		d := newHookDuo(t, "roost-outbox", b.Start(t), func() string { return "" })
		want := d.queueOnA()
		d.a.stop()
		killed := time.Now()
		d.awaitAll(want, killed)
		adopted := fmt.Sprintf(`roost_webhook_adopted_total{app="%s"}`, appID)
		if got := d.b.Metric(adopted); got != 5 {
			t.Fatalf("%s on B = %v, want 5", adopted, got)
		}
		if !testutil.Poll(hookWait, func() bool { return d.b.Metric(outboxSeries) == 0 }) {
			t.Fatalf("node B's outbox depth %v after delivering everything, want 0", d.b.Metric(outboxSeries))
		}
	})
}

// TestWebhooksSurviveBackendRestartWithData: node A holds queued and
// delayed webhook events in the outbox of a private backend that stops
// and starts again with its data (redis-server SHUTDOWN SAVE; nats-server
// killed, its JetStream store kept, as a disk keeps it); then A is killed,
// and B delivers every one of A's events, exactly once. A restart without
// the data loses the outbox (docs/webhooks.md, "What is guaranteed").
func TestWebhooksSurviveBackendRestartWithData(t *testing.T) {
	cases := []struct {
		name  string
		start func(t *testing.T) (testutil.Reach, func(), func() string)
	}{
		{"redis", func(t *testing.T) (testutil.Reach, func(), func() string) {
			r := testutil.StartRedis(t)
			return r.Reach(), func() { r.Shutdown(true); r.Start() }, r.Output
		}},
		{"nats", func(t *testing.T) (testutil.Reach, func(), func() string) {
			n := testutil.StartNATS(t)
			return n.Reach(), func() { n.Kill(); n.Start() }, n.Output
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reach, restart, output := c.start(t)
			d := newHookDuo(t, "roost-outbox-restart", reach, output)
			want := d.queueOnA()
			restart()
			waitNodes(t, []*node{d.a, d.b}, http.StatusOK, "ready")
			d.a.stop()
			d.awaitAll(want, time.Now())
		})
	}
}

// TestKilledNodesDuplicatesAreItsLastRequests measures the duplicates of a
// kill -9 under load: node A reports channel_occupied for a new channel
// every 20 ms to a receiver that takes 300 ms to answer, so that requests
// are in flight when A is killed; B then delivers A's outbox. Every
// duplicate must be an event whose first copy arrived within the last
// answer time before the kill (a request in flight, or answered while its
// removal was being written); the test logs how many there were, and how
// many channels B reported vacated whose channel_occupied never arrived
// (lost in the millisecond before their write).
func TestKilledNodesDuplicatesAreItsLastRequests(t *testing.T) {
	d := newHookDuo(t, "roost-outbox-dupes", testutil.Backends[0].Start(t), func() string { return "" })
	d.recv.answer = 300 * time.Millisecond
	c := dial(t, d.a, "client on A")
	stop := make(chan struct{})
	made := make(chan int)
	go func() {
		i := 0
		defer func() { made <- i }()
		for ; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if c.Conn.WriteText(fmt.Appendf(nil, `{"event":"pusher:subscribe","data":{"channel":"s-%d"}}`, i)) != nil {
				return
			}
		}
	}()
	time.Sleep(2 * time.Second) // load, with requests in flight
	close(stop)
	n := <-made
	d.a.stop()
	killed := time.Now()
	var got []hooked
	vacated := func() int {
		got, _ = d.recv.delivered()
		k := 0
		for _, e := range got {
			if e.Name == "channel_vacated" {
				k++
			}
		}
		return k
	}
	// B has taken A's outbox over, reported A's channels vacated and
	// delivered all of it: its outbox is empty again
	adopted := fmt.Sprintf(`roost_webhook_adopted_total{app="%s"}`, appID)
	if !testutil.Poll(hookWait, func() bool {
		return d.b.Metric(adopted) > 0 && vacated() > 0 && d.b.Metric(outboxSeries) == 0
	}) {
		t.Fatalf("B took over %v events, reported %d vacated, outbox depth %v", d.b.Metric(adopted), vacated(), d.b.Metric(outboxSeries))
	}
	all, _ := d.recv.delivered()
	occupied := map[string]bool{}
	for _, e := range all {
		if e.Name == "channel_occupied" {
			occupied[e.Channel] = true
		}
	}
	lost := 0
	for _, e := range all {
		if e.Name == "channel_vacated" && !occupied[e.Channel] {
			lost++
		}
	}
	d.recv.mu.Lock()
	var dupes []hooked
	seen := map[string]bool{}
	for _, e := range d.recv.got {
		if seen[e.ID] {
			dupes = append(dupes, e)
		}
		seen[e.ID] = true
	}
	d.recv.mu.Unlock()
	t.Logf("%d subscribes sent, %d channels occupied, %d vacated by B, %d duplicates, %d occupied lost", n, len(occupied), vacated(), len(dupes), lost)
	for _, e := range dupes {
		if at := d.recv.firstArrival(e.ID); killed.Sub(at) > d.recv.answer+200*time.Millisecond {
			t.Errorf("duplicate %s (%s) first arrived %v before the kill: it was answered, not in flight", e, e.ID, killed.Sub(at))
		}
	}
}
