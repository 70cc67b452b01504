package cluster

import (
	"encoding/json"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/hub"
)

// FuzzReceive feeds arbitrary pub/sub payloads to a node: nothing panics,
// a node never delivers its own echo, and a message is delivered exactly as
// another node encoded it.
func FuzzReceive(f *testing.F) {
	for _, m := range []*hub.Message{
		{App: "app", Channel: "news", Event: "update", Data: `{"n":1}`},
		{App: "app", Channel: "presence-x", Event: "pusher_internal:member_removed", Data: `{"user_id":"u"}`},
		{App: "app", Channel: "private-c", Event: "client-x", Data: "{}", UserID: "u", Except: "7.3"},
		{App: "app", Channel: "#server-to-user-u", Terminate: true},
	} {
		for _, node := range []string{"1", "2"} {
			b, _ := json.Marshal(envelope{Node: node, Msg: m})
			f.Add(string(b))
		}
	}
	f.Add(`{"n":"2","m":null}`)
	f.Add(`not json`)
	f.Fuzz(func(t *testing.T, payload string) {
		var got []*hub.Message
		r := &Redis{node: "1", cfg: Config{Deliver: func(m *hub.Message) { got = append(got, m) }}}
		r.receive(&redis.Message{Payload: payload})
		var e envelope
		if json.Unmarshal([]byte(payload), &e) != nil || e.Msg == nil || e.Node == "1" {
			if len(got) != 0 {
				t.Fatalf("delivered %+v from payload %q", got, payload)
			}
			return
		}
		if len(got) != 1 || *got[0] != *e.Msg {
			t.Fatalf("payload %q delivered %+v", payload, got)
		}
	})
}
