package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// joinEvery is how often a joiner opens a connection and joins a presence
// channel: 20 joins a second.
const joinEvery = 50 * time.Millisecond

// joiner keeps opening connections that join a presence channel, each as a
// new user, from goroutines of its own, and records how each join was
// answered. Its connections stay open until the test ends.
type joiner struct {
	n       *node
	channel string

	mu       sync.Mutex // guards outcome
	outcome  map[string]int
	stop     chan struct{}
	wg       sync.WaitGroup
	joinDone sync.WaitGroup
}

// startJoiner starts joining channel on n every joinEvery.
func startJoiner(t *testing.T, n *node, channel string) *joiner {
	j := &joiner{n: n, channel: channel, outcome: make(map[string]int), stop: make(chan struct{})}
	j.wg.Add(1)
	go j.loop(t)
	return j
}

func (j *joiner) loop(t *testing.T) {
	defer j.wg.Done()
	tick := time.NewTicker(joinEvery)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-j.stop:
			return
		case <-tick.C:
		}
		j.joinDone.Add(1)
		go func() {
			defer j.joinDone.Done()
			j.record(j.join(t, fmt.Sprintf("joiner-%d", i)))
		}()
	}
}

// join opens a connection, joins the channel as user and returns how the
// join was answered: "succeeded", the subscription_error's data, or why
// nothing came.
func (j *joiner) join(t *testing.T, user string) string {
	ctx, cancel := context.WithTimeout(context.Background(), testutil.ReadTimeout)
	defer cancel()
	conn, err := ws.Dial(ctx, j.n.wsURL(), nil)
	if err != nil {
		return "dial: " + err.Error()
	}
	t.Cleanup(func() { conn.Close() })
	conn.NetConn().SetReadDeadline(time.Now().Add(testutil.ReadTimeout))
	est, err := readFrame(conn)
	var d struct {
		SocketID string `json:"socket_id"`
	}
	if err != nil || json.Unmarshal([]byte(est.Text()), &d) != nil {
		return fmt.Sprintf("no connection_established: %v %v", est, err)
	}
	cd := fmt.Sprintf(`{"user_id":%q}`, user)
	sig := appKey + ":" + auth.Sign(appSecret, auth.ChannelMessage(d.SocketID, j.channel, cd))
	msg, _ := json.Marshal(map[string]any{"event": "pusher:subscribe",
		"data": map[string]string{"channel": j.channel, "auth": sig, "channel_data": cd}})
	if err := conn.WriteText(msg); err != nil {
		return "send: " + err.Error()
	}
	for {
		f, err := readFrame(conn)
		switch {
		case err != nil:
			return "no answer: " + err.Error()
		case f.Event == "pusher_internal:subscription_succeeded":
			return "succeeded"
		case f.Event == "pusher:subscription_error":
			return "subscription_error " + f.Text()
		}
	}
}

// readFrame reads the next Pusher message, skipping control frames.
func readFrame(conn *ws.Client) (testutil.Frame, error) {
	for {
		op, msg, err := conn.ReadMessage()
		if err != nil {
			return testutil.Frame{}, err
		}
		if op != ws.OpText {
			continue
		}
		var f testutil.Frame
		err = json.Unmarshal(msg, &f)
		return f, err
	}
}

func (j *joiner) record(outcome string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.outcome[outcome]++
}

// finish stops joining, waits for the joins under way to be answered and
// returns the outcomes with their counts.
func (j *joiner) finish() map[string]int {
	close(j.stop)
	j.wg.Wait()
	j.joinDone.Wait()
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.outcome
}

// unanswered returns the outcomes that are neither a success nor a
// subscription_error.
func unanswered(outcomes map[string]int) []string {
	var out []string
	for o, n := range outcomes {
		if o != "succeeded" && !strings.HasPrefix(o, "subscription_error") {
			out = append(out, fmt.Sprintf("%d× %s", n, o))
		}
	}
	return out
}
