package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// client is one Pusher connection of the schedule. A goroutine reads
// every frame into frames, so that the checker can look back at all that
// arrived; the schedule's own fields (node, user, subs) are the model's
// view of the connection and only the schedule's goroutine touches them.
type client struct {
	id     int
	node   int
	user   string          // the presence user_id and, once signed in, the user
	signed bool            // signed in as user
	signIn int             // the round it signed in
	watch  []string        // the watchlist sent at sign-in
	subs   map[string]bool // channels whose subscription succeeded
	since  map[string]int  // per channel in subs, how many events were published before it succeeded
	socket string

	conn *ws.Client
	wmu  sync.Mutex // serialises writes: the schedule's and the reader's pongs

	mu     sync.Mutex // guards frames and gone
	frames []testutil.Frame
	gone   bool // the connection has ended (closed by either side)
	done   chan struct{}
}

// errNoGreeting reports a connection that never sent
// pusher:connection_established.
var errNoGreeting = errors.New("no pusher:connection_established")

// dialClient connects to a node's WebSocket endpoint and reads
// pusher:connection_established.
func dialClient(id, node int, url, user string) (*client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), testutil.ReadTimeout)
	defer cancel()
	conn, err := ws.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	c := &client{id: id, node: node, user: user, subs: map[string]bool{}, since: map[string]int{}, conn: conn, done: make(chan struct{})}
	go c.read()
	f, ok := c.await(0, named("pusher:connection_established"))
	if !ok {
		c.close()
		return nil, errNoGreeting
	}
	var d struct {
		SocketID string `json:"socket_id"`
	}
	json.Unmarshal([]byte(f.Text()), &d)
	c.socket = d.SocketID
	return c, nil
}

// read records frames until the connection ends.
func (c *client) read() {
	defer close(c.done)
	for {
		op, msg, err := c.conn.ReadMessage()
		switch {
		case err != nil || op == ws.OpClose:
			c.mu.Lock()
			c.gone = true
			c.mu.Unlock()
			return
		case op == ws.OpPing:
			c.wmu.Lock()
			c.conn.WritePong(msg)
			c.wmu.Unlock()
		case op == ws.OpText:
			var f testutil.Frame
			if json.Unmarshal(msg, &f) == nil {
				c.mu.Lock()
				c.frames = append(c.frames, f)
				c.mu.Unlock()
			}
		}
	}
}

// send writes one Pusher message.
func (c *client) send(event string, data any, channel string) error {
	m := map[string]any{"event": event, "data": data}
	if channel != "" {
		m["channel"] = channel
	}
	b, _ := json.Marshal(m)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.conn.WriteText(b)
}

// close ends the connection from the client's side and waits for the
// reader to stop.
func (c *client) close() {
	c.conn.Close()
	<-c.done
}

// ended reports whether the connection has ended.
func (c *client) ended() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gone
}

// snapshot returns the frames read so far.
func (c *client) snapshot() []testutil.Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]testutil.Frame(nil), c.frames...)
}

// count returns how many frames have been read.
func (c *client) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.frames)
}

// awaitWait bounds how long a step of the schedule waits for its reply.
// It only turns a hang into a named failure: nothing depends on speed.
const awaitWait = 15 * time.Second

// await waits until a frame at index from or later matches want.
func (c *client) await(from int, want func(testutil.Frame) bool) (testutil.Frame, bool) {
	var found testutil.Frame
	ok := testutil.Poll(awaitWait, func() bool {
		for _, f := range c.snapshot()[from:] {
			if want(f) {
				found = f
				return true
			}
		}
		return c.ended()
	})
	return found, ok && found.Event != ""
}

func named(event string) func(testutil.Frame) bool {
	return func(f testutil.Frame) bool { return f.Event == event }
}
