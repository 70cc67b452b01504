package testutil

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Frame is one Pusher message from the server (Pusher docs, "Pusher
// Channels Protocol"). Data is the raw JSON value: for most events a JSON
// string holding JSON (the protocol's double encoding), for a few an object.
type Frame struct {
	Event   string          `json:"event"`
	Channel string          `json:"channel"`
	Data    json.RawMessage `json:"data"`
	UserID  string          `json:"user_id"`
}

// Text returns the string Data holds, or Data's raw JSON if it is not a
// string.
func (f Frame) Text() string {
	var s string
	if json.Unmarshal(f.Data, &s) == nil {
		return s
	}
	return string(f.Data)
}

// String shows the frame as event, channel and raw data, for failure
// messages.
func (f Frame) String() string {
	return fmt.Sprintf("{%s %s %s}", f.Event, f.Channel, f.Data)
}

// Named matches a frame by event name.
func Named(event string) func(Frame) bool {
	return func(f Frame) bool { return f.Event == event }
}

// Read returns the next text message from the server.
func (c *Client) Read() Frame {
	c.t.Helper()
	f, err := c.read(time.Now().Add(c.timeout()))
	if err != nil {
		c.t.Fatalf("%s: read: %v; %s", c.Name, err, c.Describe())
	}
	return f
}

// Expect reads the next message and fails the test unless it is event.
func (c *Client) Expect(event string) Frame {
	c.t.Helper()
	f := c.Read()
	if f.Event != event {
		c.t.Fatalf("%s: got %s %s %s, want %s", c.Name, f.Event, f.Channel, f.Data, event)
	}
	return f
}

// Next reads until a message matches want, and fails the test if none does
// within the client's timeout. The messages it skips are kept for Find and
// Events.
func (c *Client) Next(want func(Frame) bool) Frame {
	c.t.Helper()
	f, ok := c.Await(c.timeout(), want)
	if !ok {
		c.t.Fatalf("%s: timed out after %v waiting for a frame; %s", c.Name, c.timeout(), c.Describe())
	}
	return f
}

// Await reads until a message matches want or timeout passes, and reports
// which. A connection that fails fails the test: nothing will come.
func (c *Client) Await(timeout time.Duration, want func(Frame) bool) (Frame, bool) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		f, err := c.read(deadline)
		switch {
		case timedOut(err):
			return Frame{}, false
		case err != nil:
			c.t.Fatalf("%s: read: %v; %s", c.Name, err, c.Describe())
		case want(f):
			return f, true
		}
	}
}

// DecodeData unmarshals a frame's data into v, undoing the double encoding
// when data is a string.
func (c *Client) DecodeData(f Frame, v any) {
	c.t.Helper()
	if err := json.Unmarshal([]byte(f.Text()), v); err != nil {
		c.t.Fatalf("%s: data of %s: %v (%s)", c.Name, f.Event, err, f.Data)
	}
}

// Find returns the first message read so far that matches want.
func (c *Client) Find(want func(Frame) bool) (Frame, bool) {
	for _, f := range c.frames {
		if want(f) {
			return f, true
		}
	}
	return Frame{}, false
}

// Events returns the data (Frame.Text) of every message read so far that
// is event on channel, in order.
func (c *Client) Events(channel, event string) []string {
	var out []string
	for _, f := range c.frames {
		if f.Channel == channel && f.Event == event {
			out = append(out, f.Text())
		}
	}
	return out
}

// describeLast is how many of the latest messages Describe lists.
const describeLast = 8

// Describe lists the latest messages read, for failure messages.
func (c *Client) Describe() string {
	last := c.frames[max(0, len(c.frames)-describeLast):]
	return fmt.Sprintf("%d frames read, the last %v", len(c.frames), last)
}

// Frames returns every message read so far, in order.
func (c *Client) Frames() []Frame { return slices.Clone(c.frames) }
