package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/ws"
)

// EventsPerCycle is how many webhook events one presence cycle makes the
// server report: channel_occupied, member_added, client_event,
// member_removed and channel_vacated.
const EventsPerCycle = 5

// maxCyclesPerConn keeps each connection under the client event limit of 10
// per second (Pusher docs, "Client events"), with room for jitter.
const maxCyclesPerConn = 5

// presenceLoad makes channels occupied and vacated and members join, speak
// and leave, at a rate: each connection repeatedly subscribes to a presence
// channel of its own (a fresh name each time, so no comeback cancels the
// delayed events), sends one client event on it and unsubscribes.
type presenceLoad struct {
	t      Target
	conns  []*ws.Client
	ids    []string // socket ids
	cycles atomic.Int64
	failures
}

// connsFor returns the connections a rate of cycles per second needs.
func connsFor(rate float64) int { return max(4, int(rate/maxCyclesPerConn)+1) }

// dialLoad opens n connections to t.
func dialLoad(ctx context.Context, t Target, n int) (*presenceLoad, error) {
	l := &presenceLoad{t: t}
	for range n {
		c, id, err := dialSocket(ctx, t.WebSocketURL())
		if err != nil {
			l.close()
			return nil, fmt.Errorf("bench: webhook load: %w", err)
		}
		l.conns, l.ids = append(l.conns, c), append(l.ids, id)
	}
	return l, nil
}

// dialSocket connects and returns the socket id the server announced.
func dialSocket(ctx context.Context, url string) (*ws.Client, string, error) {
	dctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
	defer cancel()
	c, err := ws.Dial(dctx, url, nil)
	if err != nil {
		return nil, "", err
	}
	c.NetConn().SetReadDeadline(time.Now().Add(handshakeTimeout))
	msg, err := readText(c)
	if err != nil {
		c.Close()
		return nil, "", err
	}
	var env struct{ Data string }
	var data struct {
		SocketID string `json:"socket_id"`
	}
	if json.Unmarshal(msg, &env) != nil || json.Unmarshal([]byte(env.Data), &data) != nil || data.SocketID == "" {
		c.Close()
		return nil, "", fmt.Errorf("expected pusher:connection_established, got %.200s", msg)
	}
	return c, data.SocketID, nil
}

func (l *presenceLoad) close() {
	for _, c := range l.conns {
		c.Close()
	}
}

// run cycles every connection at rate cycles per second in all until ctx
// ends.
func (l *presenceLoad) run(ctx context.Context, rate float64) {
	var wg sync.WaitGroup
	every := time.Duration(float64(len(l.conns)) / rate * float64(time.Second))
	for i := range l.conns {
		wg.Go(func() {
			// Spread the connections' turns over one interval.
			if sleep(ctx, every*time.Duration(i)/time.Duration(len(l.conns))) != nil {
				return
			}
			t := time.NewTicker(every)
			defer t.Stop()
			for n := 0; ; n++ {
				if err := l.cycle(i, n); err != nil {
					l.fail(err)
				}
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		})
	}
	wg.Wait()
}

// cycle subscribes connection i to its n-th channel, sends a client event
// there and unsubscribes.
func (l *presenceLoad) cycle(i, n int) error {
	c := l.conns[i]
	channel := "presence-hook-" + strconv.Itoa(i) + "-" + strconv.Itoa(n)
	channelData := `{"user_id":"user-` + strconv.Itoa(i) + `","user_info":{"name":"bench"}}`
	sig := auth.Sign(l.t.Secret, auth.ChannelMessage(l.ids[i], channel, channelData))
	sub, _ := json.Marshal(map[string]any{"event": "pusher:subscribe", "data": map[string]string{
		"channel": channel, "auth": l.t.Key + ":" + sig, "channel_data": channelData}})
	if err := c.WriteText(sub); err != nil {
		return err
	}
	c.NetConn().SetReadDeadline(time.Now().Add(handshakeTimeout))
	if err := expectEvent(c, "pusher_internal:subscription_succeeded", true); err != nil {
		return err
	}
	ev := `{"event":"client-typing","channel":"` + channel + `","data":{"n":` + strconv.Itoa(n) + `,"sent_ns":` +
		strconv.FormatInt(time.Now().UnixNano(), 10) + `,"text":"bench"}}`
	unsub := `{"event":"pusher:unsubscribe","data":{"channel":"` + channel + `"}}`
	if err := c.WriteText([]byte(ev)); err != nil {
		return err
	}
	if err := c.WriteText([]byte(unsub)); err != nil {
		return err
	}
	l.cycles.Add(1)
	return nil
}
