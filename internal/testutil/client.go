package testutil

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/ws"
)

// ReadTimeout bounds how long a Client waits for a frame before the test
// fails. Like Eventually's timeout it only turns a hang into a failure.
const ReadTimeout = 10 * time.Second

// Client is a Pusher protocol 7 connection for tests. It starts no
// goroutine: it reads only when the test asks for a frame, so a test may
// open thousands and still count the server's goroutines. It keeps every
// frame it has read (Find, Events) and answers WebSocket pings while it
// reads, but never pusher:ping, so that a test can watch the server's
// keepalive give up.
type Client struct {
	// Conn is the WebSocket, for tests that send or read raw frames.
	Conn *ws.Client
	// SocketID is the socket_id of pusher:connection_established, once
	// Connect has read it.
	SocketID string
	// Name names the client in failure messages; Dial sets it to the URL.
	Name string
	// Timeout bounds each wait of Read, Expect, Next and CloseCode. Zero
	// means ReadTimeout; a test on a synctest fake clock raises it past the
	// server's own timeouts.
	Timeout time.Duration

	t      testing.TB
	frames []Frame
}

// Dial opens a WebSocket to url and returns without reading anything: the
// first frame is pusher:connection_established or pusher:error. The
// connection is closed when the test ends.
func Dial(t testing.TB, url string, opts *ws.DialOptions) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ReadTimeout)
	defer cancel()
	conn, err := ws.Dial(ctx, url, opts)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close() })
	return &Client{Conn: conn, Name: url, t: t}
}

// Connect dials url and reads pusher:connection_established, whose
// socket_id it keeps.
func Connect(t testing.TB, url string, opts *ws.DialOptions) *Client {
	t.Helper()
	c := Dial(t, url, opts)
	var d struct {
		SocketID string `json:"socket_id"`
	}
	c.DecodeData(c.Expect("pusher:connection_established"), &d)
	if d.SocketID == "" {
		c.t.Fatalf("%s: connection_established without a socket_id", c.Name)
	}
	c.SocketID = d.SocketID
	return c
}

// Send writes one text message, fmt.Sprintf(format, args...).
func (c *Client) Send(format string, args ...any) {
	c.t.Helper()
	if err := c.Conn.WriteText(fmt.Appendf(nil, format, args...)); err != nil {
		c.t.Fatalf("%s: send: %v", c.Name, err)
	}
}

// Ping sends pusher:ping and expects pusher:pong as the next frame.
func (c *Client) Ping() {
	c.t.Helper()
	c.Send(`{"event":"pusher:ping","data":{}}`)
	c.Expect("pusher:pong")
}

// ChannelAuth returns the auth field of a private or presence subscription
// signed with the app's key and secret (Pusher docs, "Auth signatures").
func (c *Client) ChannelAuth(key, secret, channel, channelData string) string {
	return key + ":" + auth.Sign(secret, auth.ChannelMessage(c.SocketID, channel, channelData))
}

// Subscribe joins a public channel and expects subscription_succeeded for
// it as the next frame.
func (c *Client) Subscribe(channel string) Frame {
	c.t.Helper()
	return c.SubscribeWith(channel, "", "")
}

// SubscribeWith joins channel with the given auth and channel_data (either
// may be empty) and expects subscription_succeeded for it as the next frame.
func (c *Client) SubscribeWith(channel, auth, channelData string) Frame {
	c.t.Helper()
	data := map[string]string{"channel": channel, "auth": auth}
	if channelData != "" {
		data["channel_data"] = channelData
	}
	msg, _ := json.Marshal(map[string]any{"event": "pusher:subscribe", "data": data})
	c.Send("%s", msg)
	f := c.Expect("pusher_internal:subscription_succeeded")
	if f.Channel != channel {
		c.t.Fatalf("%s: subscription_succeeded for %q, want %q", c.Name, f.Channel, channel)
	}
	return f
}

// CloseCode reads until the server's close frame and returns its code.
func (c *Client) CloseCode() ws.CloseCode {
	c.t.Helper()
	c.Conn.NetConn().SetReadDeadline(time.Now().Add(c.timeout()))
	for {
		op, msg, err := c.Conn.ReadMessage()
		if err != nil {
			c.t.Fatalf("%s: no close frame: %v", c.Name, err)
		}
		if op == ws.OpClose {
			code, _, err := ws.ParseClose(msg)
			if err != nil {
				c.t.Fatalf("%s: bad close frame %q: %v", c.Name, msg, err)
			}
			return code
		}
	}
}

// timeout returns c.Timeout or, if zero, ReadTimeout.
func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return ReadTimeout
}

// errNotText reports a frame that is neither text nor a ping.
var errNotText = errors.New("want a text frame")

// read returns the next text message before deadline, answering pings.
func (c *Client) read(deadline time.Time) (Frame, error) {
	c.Conn.NetConn().SetReadDeadline(deadline)
	for {
		op, msg, err := c.Conn.ReadMessage()
		switch {
		case err != nil:
			return Frame{}, err
		case op == ws.OpPing:
			c.Conn.WritePong(msg)
			continue
		case op != ws.OpText:
			return Frame{}, fmt.Errorf("got a %v frame %q: %w", op, msg, errNotText)
		}
		var f Frame
		if err := json.Unmarshal(msg, &f); err != nil {
			return Frame{}, fmt.Errorf("bad JSON from the server %q: %w", msg, err)
		}
		c.frames = append(c.frames, f)
		return f, nil
	}
}

// timedOut reports a read that ended at its deadline. The client stays
// usable: it reads frames of up to 4 KB with Peek, consuming nothing
// until a whole frame is there.
func timedOut(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }
