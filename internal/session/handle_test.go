package session

import (
	"context"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/ws"
)

const pong = `{"event":"pusher:pong","data":"{}"}`

// TestHandleText checks the replies to keepalives and to messages the
// server cannot act on: each gets a pusher:error and the connection stays
// up (Pusher docs, "Pusher Channels Protocol", "Ping and pong messages",
// "pusher:error").
func TestHandleText(t *testing.T) {
	cases := []struct {
		name string
		send string
		want []string
	}{
		{"pusher-js ping", `{"event":"pusher:ping","data":{}}`, []string{pong}},
		{"ping written otherwise", `{ "data" : {}, "event" : "pusher:ping" }`, []string{pong}},
		{"ping without data", `{"event":"pusher:ping"}`, []string{pong}},
		{"pong", `{"event":"pusher:pong","data":{}}`, nil},
		{"not JSON", `{"event":`, []string{pusherError(0, "The message is not valid JSON.")}},
		{"not an object", `["pusher:ping"]`, []string{pusherError(0, "The message must be a JSON object.")}},
		{"no event", `{"data":{}}`, []string{pusherError(0, "The message has no event name.")}},
		{"event not a string", `{"event":7}`, []string{pusherError(0, "The event name must be a string.")}},
		{"channel not a string", `{"event":"client-x","channel":1}`, []string{pusherError(0, "The channel must be a string.")}},
		{"unknown pusher event", `{"event":"pusher:whatever","data":{}}`, []string{pusherError(0, `unsupported event "pusher:whatever"`)}},
		{"unknown event", `{"event":"hello"}`, []string{pusherError(0, `unsupported event "hello"`)}},
		{"long event name cut in the reply", `{"event":"` + strings.Repeat("e", 64) + `tail"}`,
			[]string{pusherError(0, `unsupported event "`+strings.Repeat("e", 64)+`..."`)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newFixture(t, nil).connect()
			r.send(tc.send)
			r.expect(tc.want...)
			if r.closeCode() != 0 {
				t.Fatalf("closed with %d", r.closeCode())
			}
		})
	}
}

// TestServerInitiated checks what the session sends when the transport or
// the hub, not the client, acts.
func TestServerInitiated(t *testing.T) {
	cases := []struct {
		name  string
		act   func(Call)
		want  []string
		close ws.CloseCode
	}{
		{"ping after silence", Call.Ping, []string{`{"event":"pusher:ping","data":"{}"}`}, 0},
		{"shutdown", Call.Shutdown, []string{pusherError(pusher.ReconnectNow, "server is shutting down")}, 4200},
		{"terminate", Call.Terminate, []string{pusherError(pusher.Unauthorized, "connection terminated by the server")}, 4009},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newFixture(t, nil).connect()
			tc.act(r.call())
			r.expect(tc.want...)
			if r.closeCode() != tc.close {
				t.Fatalf("close code %d, want %d", r.closeCode(), tc.close)
			}
		})
	}
}

// TestClosedSessionIsSilent: once the transport has called Closed, the
// session writes nothing and holds no channel.
func TestClosedSessionIsSilent(t *testing.T) {
	f := newFixture(t, nil)
	r := f.connect()
	r.join("news", "")
	r.close()
	r.close() // a second Closed does nothing
	if got, _ := f.env.Hub.Channel(context.Background(), "app-id", "news"); got.Occupied {
		t.Fatalf("a closed session still holds its channel: %+v", got)
	}
	r.send(`{"event":"pusher:ping","data":{}}`)
	r.send(subscribe("other", "", ""))
	r.call().Ping()
	r.expect()
}
