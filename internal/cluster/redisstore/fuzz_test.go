package redisstore

import (
	"encoding/json"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
)

// FuzzReceive feeds arbitrary pub/sub payloads to a node, each one twice
// (as Redis does with a write a node gave up on and tried again): nothing
// panics, a node never delivers its own echo, a message is delivered
// exactly as another node encoded it, and a numbered one only once.
func FuzzReceive(f *testing.F) {
	for i, m := range []*hub.Message{
		{App: "app", Channel: "news", Event: "update", Data: `{"n":1}`},
		{App: "app", Channel: "presence-x", Event: "pusher_internal:member_removed", Data: `{"user_id":"u"}`},
		{App: "app", Channel: "private-c", Event: "client-x", Data: "{}", UserID: "u", Except: "7.3"},
		{App: "app", Channel: "#server-to-user-u", Terminate: true},
	} {
		for _, node := range []string{"1", "2"} {
			for _, seq := range []uint64{0, uint64(i + 1), 1 << 63} {
				b, _ := json.Marshal(cluster.Envelope{Node: node, Seq: seq, Msg: m})
				f.Add(string(b))
			}
		}
	}
	f.Add(`{"n":"2","m":null}`)
	f.Add(`{"n":"2","s":-1,"m":{"a":"app","c":"x","e":"e","d":""}}`)
	f.Add(`not json`)
	var got []*hub.Message
	n := start(f, unreachableURL(f), cluster.Settings{Node: 1, Deliver: func(m *hub.Message) { got = append(got, m) }})
	f.Cleanup(func() { n.Close() })
	r := n.Store
	f.Fuzz(func(t *testing.T, payload string) {
		got, r.seen = nil, cluster.Seen{}
		r.receive(&redis.Message{Payload: payload})
		r.receive(&redis.Message{Payload: payload})
		var e cluster.Envelope
		if json.Unmarshal([]byte(payload), &e) != nil || e.Msg == nil || e.Node == "1" {
			if len(got) != 0 {
				t.Fatalf("delivered %+v from payload %q", got, payload)
			}
			return
		}
		want := 2
		if e.Seq > 0 {
			want = 1
		}
		if len(got) != want || *got[0] != *e.Msg {
			t.Fatalf("payload %q received twice delivered %+v, want it %d times", payload, got, want)
		}
	})
}
