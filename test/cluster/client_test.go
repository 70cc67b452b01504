package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/ws"
)

// eventWait bounds how long a client waits for one frame.
const eventWait = 10 * time.Second

// frame is one server message (docs/protocol.md, "Messages": data is a
// JSON-encoded string).
type frame struct {
	Event   string `json:"event"`
	Channel string `json:"channel"`
	Data    string `json:"data"`
}

// client is a Pusher protocol 7 connection to one node. A goroutine reads
// every frame into a list that tests wait on, and answers WebSocket pings.
type client struct {
	t        *testing.T
	name     string
	conn     *ws.Client
	socketID string

	mu     sync.Mutex // guards frames and closed
	frames []frame
	closed error
	done   chan struct{}
}

// dial connects to n and waits for pusher:connection_established.
func dial(t *testing.T, n *node, name string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), eventWait)
	defer cancel()
	conn, err := ws.Dial(ctx, n.wsURL(), nil)
	if err != nil {
		t.Fatalf("%s: dial %s: %v", name, n.name, err)
	}
	c := &client{t: t, name: name, conn: conn, done: make(chan struct{})}
	go c.read()
	t.Cleanup(c.close)
	est := c.next(func(f frame) bool { return f.Event == "pusher:connection_established" })
	var d struct {
		SocketID string `json:"socket_id"`
	}
	if err := json.Unmarshal([]byte(est.Data), &d); err != nil || d.SocketID == "" {
		t.Fatalf("%s: bad connection_established %+v: %v", name, est, err)
	}
	c.socketID = d.SocketID
	return c
}

// read records frames until the connection ends.
func (c *client) read() {
	defer close(c.done)
	for {
		op, p, err := c.conn.ReadMessage()
		if err != nil {
			c.mu.Lock()
			c.closed = err
			c.mu.Unlock()
			return
		}
		switch op {
		case ws.OpPing:
			c.conn.WritePong(p)
		case ws.OpText:
			var f frame
			if json.Unmarshal(p, &f) == nil {
				c.mu.Lock()
				c.frames = append(c.frames, f)
				c.mu.Unlock()
			}
		}
	}
}

// close ends the connection and waits for the reader.
func (c *client) close() {
	c.conn.Close()
	<-c.done
}

// find returns the first recorded frame matching want.
func (c *client) find(want func(frame) bool) (frame, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.frames {
		if want(f) {
			return f, true
		}
	}
	return frame{}, false
}

// next waits for a frame matching want, already received or yet to come.
func (c *client) next(want func(frame) bool) frame {
	c.t.Helper()
	var got frame
	if !poll(eventWait, func() bool {
		f, ok := c.find(want)
		got = f
		return ok
	}) {
		c.t.Fatalf("%s: timed out after %v waiting for a frame; got %s", c.name, eventWait, c.describe())
	}
	return got
}

// events returns the data of every event named event on channel, in order.
func (c *client) events(channel, event string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, f := range c.frames {
		if f.Channel == channel && f.Event == event {
			out = append(out, f.Data)
		}
	}
	return out
}

// describeLast is how many of the latest frames describe lists.
const describeLast = 8

// describe lists the latest frames, for failure messages.
func (c *client) describe() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	last := c.frames[max(0, len(c.frames)-describeLast):]
	return fmt.Sprintf("%d frames, the last %+v (connection error: %v)", len(c.frames), last, c.closed)
}

// send writes one Pusher message.
func (c *client) send(event string, data any) {
	c.t.Helper()
	b, _ := json.Marshal(map[string]any{"event": event, "data": data})
	if err := c.conn.WriteText(b); err != nil {
		c.t.Fatalf("%s: send %s: %v", c.name, event, err)
	}
}

// subscribe joins channel (a presence channel as userID, if not empty) and
// waits for subscription_succeeded.
func (c *client) subscribe(channel, userID string) frame {
	c.t.Helper()
	data := map[string]string{"channel": channel, "auth": ""}
	if userID != "" {
		cd := fmt.Sprintf(`{"user_id":%q}`, userID)
		data["channel_data"] = cd
		data["auth"] = appKey + ":" + auth.Sign(appSecret, auth.ChannelMessage(c.socketID, channel, cd))
	}
	c.send("pusher:subscribe", data)
	return c.next(func(f frame) bool {
		return f.Channel == channel && f.Event == "pusher_internal:subscription_succeeded"
	})
}
