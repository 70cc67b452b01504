package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/roostproject/roost/internal/ws"
)

// handshakeTimeout bounds one connection's dial, handshake and first reply.
const handshakeTimeout = 15 * time.Second

// BenchEvent is the event name fanout publishes; its data is the publish
// time in Unix nanoseconds.
const BenchEvent = "bench-ts"

// runConn dials one connection, subscribes it, exchanges one ping and then
// holds it like pusher-js would until the worker stops.
func (w *worker) runConn() {
	defer w.live.Add(-1)
	c, activity, err := w.dial()
	<-w.sem
	if err != nil {
		w.fail(err)
		return
	}
	defer w.untrack(c)
	idx := w.seq.Add(1)
	if err := w.prepare(c, idx); err != nil {
		w.fail(err)
		return
	}
	w.ready.Add(1)
	defer w.ready.Add(-1)
	if w.cfg.noRead {
		<-w.ctx.Done() // what the server sends stays in the sockets' buffers
		return
	}
	interval := w.cfg.ping
	if interval <= 0 {
		interval = activity
	}
	err = w.hold(c, idx, interval) // it returns only when the connection ends
	if w.ctx.Err() == nil {
		w.dropped.Add(1)
		w.setErr(err)
	}
}

func (w *worker) fail(err error) {
	if w.ctx.Err() != nil {
		return
	}
	w.failed.Add(1)
	w.setErr(err)
}

// dial opens a connection and reads pusher:connection_established,
// returning the activity timeout it announces.
func (w *worker) dial() (*ws.Client, time.Duration, error) {
	ctx, cancel := context.WithTimeout(w.ctx, handshakeTimeout)
	defer cancel()
	c, err := ws.Dial(ctx, w.cfg.url, &ws.DialOptions{LocalAddr: w.cfg.source, Deflate: w.cfg.deflate, TLSConfig: w.cfg.tls})
	if err != nil {
		return nil, 0, err
	}
	if !w.track(c) {
		c.Close()
		return nil, 0, context.Canceled
	}
	c.NetConn().SetReadDeadline(time.Now().Add(handshakeTimeout))
	msg, err := readText(c)
	if err != nil {
		w.untrack(c)
		return nil, 0, err
	}
	activity, err := established(msg)
	if err != nil {
		w.untrack(c)
		return nil, 0, err
	}
	w.activity.Store(int64(activity / time.Second))
	return c, activity, nil
}

// track registers c so that shutdown can close it; false if the worker is
// already stopping.
func (w *worker) track(c *ws.Client) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ctx.Err() != nil {
		return false
	}
	w.clients[c] = struct{}{}
	return true
}

func (w *worker) untrack(c *ws.Client) {
	w.mu.Lock()
	delete(w.clients, c)
	w.mu.Unlock()
	c.Close()
}

// established parses pusher:connection_established (Pusher protocol,
// "Connection") and returns its activity_timeout.
func established(msg []byte) (time.Duration, error) {
	var env struct {
		Event string `json:"event"`
		Data  string `json:"data"`
	}
	if err := json.Unmarshal(msg, &env); err != nil || env.Event != "pusher:connection_established" {
		return 0, fmt.Errorf("expected pusher:connection_established, got %.200s", msg)
	}
	var data struct {
		SocketID        string `json:"socket_id"`
		ActivityTimeout int    `json:"activity_timeout"`
	}
	// Pusher requires a positive timeout; a week bounds what fits a Duration.
	if err := json.Unmarshal([]byte(env.Data), &data); err != nil || data.ActivityTimeout <= 0 || data.ActivityTimeout > 7*24*3600 {
		return 0, fmt.Errorf("bad connection_established data %.200q", env.Data)
	}
	return time.Duration(data.ActivityTimeout) * time.Second, nil
}

// readText returns the next text message, answering WebSocket pings.
func readText(c *ws.Client) ([]byte, error) {
	for {
		op, msg, err := c.ReadMessage()
		switch {
		case err != nil:
			return nil, err
		case op == ws.OpText:
			return msg, nil
		case op == ws.OpPing:
			c.WritePong(msg)
		case op == ws.OpClose:
			code, reason, _ := ws.ParseClose(msg)
			return nil, fmt.Errorf("server closed the connection: %d %s", code, reason)
		}
	}
}

// channel names connection idx's j-th channel: shared from a pool, or its own.
func (w *worker) channel(idx int64, j int) string {
	if w.cfg.pool > 0 {
		return w.cfg.poolPrefix + strconv.FormatInt(((idx+w.cfg.offset)*int64(w.cfg.channels)+int64(j))%int64(w.cfg.pool), 10)
	}
	return fmt.Sprintf("bench-w%d-%d-%d", w.cfg.id, idx, j)
}

// prepare subscribes c to its channels and exchanges one pusher:ping, so
// that a ready connection has done everything an idle client does.
func (w *worker) prepare(c *ws.Client, idx int64) error {
	names := make([]string, 0, w.cfg.channels+1)
	for j := range w.cfg.channels {
		names = append(names, w.channel(idx, j))
	}
	if w.cfg.also != "" {
		names = append(names, w.cfg.also)
	}
	for _, name := range names {
		if err := c.WriteText(subscribeMsg(name)); err != nil {
			return err
		}
	}
	for ok := 0; ok < len(names); {
		if err := expectEvent(c, "pusher_internal:subscription_succeeded", false); err != nil {
			return err
		}
		ok++
	}
	if err := c.WriteText(pingMsg); err != nil {
		return err
	}
	w.pings.Add(1)
	return expectEvent(c, "pusher:pong", false)
}

// subscribeMsg is pusher:subscribe for a public channel.
func subscribeMsg(channel string) []byte {
	return []byte(`{"event":"pusher:subscribe","data":{"auth":"","channel":"` + channel + `"}}`)
}

var (
	pingMsg = []byte(`{"event":"pusher:ping","data":{}}`)
	pongMsg = []byte(`{"event":"pusher:pong","data":{}}`)
)

// expectEvent reads until an event named name arrives; an error event
// fails. With pong it answers the server's pings meanwhile, as a client
// that stays a while must; without, a ping is passed over like any other
// event.
func expectEvent(c *ws.Client, name string, pong bool) error {
	for {
		msg, err := readText(c)
		if err != nil {
			return err
		}
		switch ev := eventName(msg); {
		case ev == name:
			return nil
		case ev == "pusher:ping" && pong:
			c.WriteText(pongMsg)
		case ev == "pusher:error", ev == "pusher:subscription_error":
			return fmt.Errorf("server answered %.200s", msg)
		}
	}
}

// hold reads until the worker stops or the connection fails, sending
// pusher:ping after interval of silence as pusher-js does.
func (w *worker) hold(c *ws.Client, idx int64, interval time.Duration) error {
	nc := c.NetConn()
	for {
		nc.SetReadDeadline(time.Now().Add(interval))
		op, msg, err := c.ReadMessage()
		var ne net.Error
		switch {
		case err != nil && errors.As(err, &ne) && ne.Timeout():
			w.pings.Add(1)
			if err := c.WriteText(pingMsg); err != nil {
				return err
			}
		case err != nil:
			return err
		case op == ws.OpPing:
			c.WritePong(msg)
		case op == ws.OpClose:
			code, reason, _ := ws.ParseClose(msg)
			c.WriteClose(code, "")
			return fmt.Errorf("server closed the connection: %d %s", code, reason)
		case op == ws.OpText:
			w.onText(c, idx, msg)
		}
	}
}

// onText handles a message on a ready connection.
func (w *worker) onText(c *ws.Client, idx int64, msg []byte) {
	switch eventName(msg) {
	case BenchEvent:
		w.received.Add(1)
		if ts, ok := eventStamp(msg); ok {
			w.record(idx, time.Now().UnixNano()-ts)
		}
	case "pusher:ping":
		w.serverPings.Add(1)
		c.WriteText(pongMsg)
	}
}

// eventName returns the value of the leading "event" member of a server
// message, which roost (like Pusher) always writes first, without escapes.
func eventName(msg []byte) string {
	const key = `{"event":"`
	if !bytes.HasPrefix(msg, []byte(key)) {
		return ""
	}
	rest := msg[len(key):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return ""
	}
	return string(rest[:end])
}

// eventStamp returns the Unix-nanosecond time a bench event carries as data.
func eventStamp(msg []byte) (int64, bool) {
	const key = `"data":"`
	i := bytes.Index(msg, []byte(key))
	if i < 0 {
		return 0, false
	}
	rest := msg[i+len(key):]
	end := bytes.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 || (rest[end] != '"' && rest[end] != ' ') {
		return 0, false
	}
	ts, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	return ts, err == nil
}

// churnOnce connects, reads connection_established, subscribes to a
// public channel of its own and waits for subscription_succeeded (unless
// the worker churns bare), then closes cleanly (close frame, wait for the
// server's), as a page load and unload does.
func (w *worker) churnOnce() {
	c, _, err := w.dial()
	<-w.sem
	if err == nil {
		defer w.untrack(c)
		err = w.churnSubscribe(c)
	}
	if err != nil {
		if w.ctx.Err() == nil {
			w.churnFailed.Add(1)
			w.setErr(err)
		}
		return
	}
	w.handshakes.Add(1)
	c.WriteClose(ws.CloseNormal, "")
	c.NetConn().SetReadDeadline(time.Now().Add(handshakeTimeout))
	for {
		op, _, err := c.ReadMessage()
		if err != nil || op == ws.OpClose {
			return
		}
	}
}

// churnSubscribe subscribes a churned connection to its channel and waits
// for the server's answer; bare churn skips it.
func (w *worker) churnSubscribe(c *ws.Client) error {
	if w.cfg.churnBare {
		return nil
	}
	name := w.channel(w.seq.Add(1), 0)
	if err := c.WriteText(subscribeMsg(name)); err != nil {
		return err
	}
	return expectEvent(c, "pusher_internal:subscription_succeeded", false)
}
