package cluster

import (
	"crypto/rand"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
)

// canaryBaseline is how many canary events are measured before the fault.
const canaryBaseline = 20

// TestRedisSleepStallsNoConnection makes Redis answer nothing for 2 s
// (DEBUG SLEEP 2) while presence joins arrive at 20 a second on a node:
// the node's other connections are served as usual, every join is
// answered, and GET /ready stays 200, since one slow reply is not an
// unreachable Redis. Served as usual is told by order, not by a latency
// budget: the canary events published while Redis slept arrive while it
// still sleeps (all but the last, which may have been published just
// before it woke), where a node that waited for Redis would deliver none
// of them before DEBUG SLEEP returned. The latencies are logged.
//
// Redis only: DEBUG SLEEP, one slow reply on a live connection, has no
// NATS counterpart; a paused NATS is tested in process
// (internal/cluster/natsstore's TestNATSPausePastTTL).
func TestRedisSleepStallsNoConnection(t *testing.T) {
	t.Parallel()
	r := testutil.StartRedis(t)
	n := startNode(t, buildRoost(t), "node A", r.Reach(), prefixFor("roost-sleep"))
	logOnFailure(t, r, n)
	waitNodeReady(t, n)
	canary := startAsyncCanary(t, n, "canary")
	joins := startJoiner(t, n, "presence-sleep")
	testutil.Eventually(t, testutil.ReadTimeout, "the canary's baseline", func() bool { return canary.Sent() >= canaryBaseline })
	ready := watchReady(n)
	start := time.Now()
	reply, err := r.Command(testutil.ReadTimeout, "DEBUG", "SLEEP", "2")
	end := time.Now()
	if err != nil || reply != "+OK" {
		t.Fatalf("DEBUG SLEEP 2: %q %v", reply, err)
	}
	after := canary.Sent()
	testutil.Eventually(t, testutil.ReadTimeout, "canary events after the sleep", func() bool { return canary.Sent() >= after+10 })
	outcomes := joins.finish()
	statuses := ready.finish()
	canary.Stop(testutil.ReadTimeout)
	base, during := canary.Report(time.Time{}, start), canary.Report(start, end)
	t.Logf("canary before the sleep: %v", base)
	t.Logf("canary during the sleep: %v", during)
	t.Logf("presence joins: %v; GET /ready during the sleep: %v", outcomes, statuses)
	if during.Sent < 2 || during.Missed > 0 || during.Inside < during.Sent-1 {
		t.Errorf("of the %d canary events published while Redis slept, %d arrived before it woke (want all but the last, of at least 2) and %d never: %v",
			during.Sent, during.Inside, during.Missed, during)
	}
	if u := unanswered(outcomes); len(u) > 0 {
		t.Errorf("presence joins left without an answer: %v", u)
	}
	if statuses[http.StatusOK] == 0 || len(statuses) > 1 {
		t.Errorf("GET /ready while Redis slept 2 s answered %v, want only 200", statuses)
	}
}

// prefixFor returns a fresh Redis prefix starting with name.
func prefixFor(name string) string { return name + "-" + strings.ToLower(rand.Text()) }

// logOnFailure logs the output of Redis and the nodes if the test fails.
func logOnFailure(t *testing.T, r *testutil.Redis, nodes ...*node) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, n := range nodes {
			t.Log(n.logs())
		}
		t.Logf("--- redis-server ---\n%s", r.Output())
	})
}

// waitNodeReady polls GET /ready on n until it answers 200.
func waitNodeReady(t *testing.T, n *node) {
	t.Helper()
	testutil.Eventually(t, stateChange, "GET /ready on "+n.name+" answering 200", func() bool {
		status, _ := n.ready()
		return status == http.StatusOK
	})
}

// startCanary subscribes a canary on sub to channel, publishing through
// pub's HTTP API.
func startCanary(t *testing.T, sub, pub *node, channel string) *testutil.Canary {
	t.Helper()
	c := dial(t, sub, "canary")
	c.Subscribe(channel)
	return testutil.StartCanary(c, channel, func(data string) error {
		return pub.publish(channel, testutil.CanaryEvent, data)
	})
}

// startAsyncCanary is startCanary on n with each publish on a goroutine of
// its own: a publish's 200 waits for Redis to store it, and a canary that
// waited for each would publish once in a whole Redis stall.
func startAsyncCanary(t *testing.T, n *node, channel string) *testutil.Canary {
	t.Helper()
	c := dial(t, n, "canary")
	c.Subscribe(channel)
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	return testutil.StartCanary(c, channel, func(data string) error {
		wg.Go(func() {
			if err := n.publish(channel, testutil.CanaryEvent, data); err != nil {
				t.Errorf("publishing canary event %s: %v", data, err)
			}
		})
		return nil
	})
}

// readyWatch polls GET /ready from a goroutine and counts the answers.
type readyWatch struct {
	mu       sync.Mutex // guards statuses
	statuses map[int]int
	stop     chan struct{}
	done     chan struct{}
}

func watchReady(n *node) *readyWatch {
	w := &readyWatch{statuses: make(map[int]int), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			select {
			case <-w.stop:
				return
			default:
			}
			status, _ := n.ready()
			w.mu.Lock()
			w.statuses[status]++
			w.mu.Unlock()
			time.Sleep(20 * time.Millisecond) // a polling interval, not a wait for a condition
		}
	}()
	return w
}

// finish stops polling and returns how often each status was answered.
func (w *readyWatch) finish() map[int]int {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.statuses
}
