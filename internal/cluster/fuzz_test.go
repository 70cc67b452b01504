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

// FuzzDecodeTally feeds arbitrary records to the decoder of the nodes'
// connection counts: nothing panics, no count below one comes out, and a
// record the encoder wrote reads back as it was.
func FuzzDecodeTally(f *testing.F) {
	f.Add(EncodeTally(map[string]int{"app": 3, "other": 1}))
	f.Add(EncodeTally(map[string]int{}))
	f.Add([]byte(`{"app":-2,"b":0}`))
	f.Add([]byte(`{"app":1e30}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, rec []byte) {
		m := DecodeTally(rec)
		for app, c := range m {
			if c < 1 {
				t.Fatalf("record %q: %s counts %d", rec, app, c)
			}
		}
		if back := DecodeTally(EncodeTally(m)); len(back) != len(m) {
			t.Fatalf("record %q: %v read back as %v", rec, m, back)
		}
	})
}
