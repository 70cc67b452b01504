package cluster

import (
	"encoding/json"
	"testing"

	"github.com/roostproject/roost/internal/hub"
)

// FuzzUnseal feeds arbitrary payloads from the store to a node: nothing panics, a
// node never delivers its own echo, and another node's message is
// delivered once, exactly as it was encoded.
func FuzzUnseal(f *testing.F) {
	for _, m := range []*hub.Message{
		{App: "app", Channel: "news", Event: "update", Data: `{"n":1}`},
		{App: "app", Channel: "presence-x", Event: "pusher_internal:member_removed", Data: `{"user_id":"u"}`},
		{App: "app", Channel: "private-c", Event: "client-x", Data: "{}", UserID: "u", Except: "7.3"},
		{App: "app", Channel: "#server-to-user-u", Terminate: true},
	} {
		for _, node := range []string{"1", "2"} {
			b, _ := json.Marshal(Envelope{Node: node, Msg: m})
			f.Add(b)
			b, _ = json.Marshal(Envelope{Node: node, Seq: 7, Msg: m})
			f.Add(b)
		}
	}
	f.Add([]byte(`{"n":"2","m":null}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		var got []*hub.Message
		n := &Node{id: "1", cfg: Settings{Deliver: func(m *hub.Message) { got = append(got, m) }}}
		if e := n.Unseal(payload); e != nil {
			n.Deliver(e.Msg)
		}
		var e Envelope
		if json.Unmarshal(payload, &e) != nil || e.Msg == nil || e.Node == "1" {
			if len(got) != 0 {
				t.Fatalf("delivered %+v from payload %q", got, payload)
			}
			return
		}
		if len(got) != 1 || *got[0] != *e.Msg {
			t.Fatalf("payload %q delivered %+v, want it once", payload, got)
		}
	})
}
