package natsstore

import (
	"encoding/json"
	"testing"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
)

// FuzzReceive feeds arbitrary subject payloads to a node: nothing panics, a
// node never delivers its own echo, and another node's message is
// delivered once, exactly as it was encoded.
func FuzzReceive(f *testing.F) {
	for _, m := range []*hub.Message{
		{App: "app", Channel: "news", Event: "update", Data: `{"n":1}`},
		{App: "app", Channel: "presence-x", Event: "pusher_internal:member_removed", Data: `{"user_id":"u"}`},
		{App: "app", Channel: "private-c", Event: "client-x", Data: "{}", UserID: "u", Except: "7.3"},
		{App: "app", Channel: "#server-to-user-u", Terminate: true},
	} {
		for _, node := range []string{"1", "2"} {
			b, _ := json.Marshal(envelope{Node: node, Msg: m})
			f.Add(b)
		}
	}
	f.Add([]byte(`{"n":"2","m":null}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		var got []*hub.Message
		n := &Node{node: "1", cfg: Config{Settings: cluster.Settings{Deliver: func(m *hub.Message) { got = append(got, m) }}}}
		n.receive(payload)
		var e envelope
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

// FuzzHash feeds arbitrary bucket values to the code that reads and changes
// them, as a value written by a broken or older node would arrive: nothing
// panics, a change moves this node's share by exactly its delta, and
// setting a node's shares leaves it exactly those.
func FuzzHash(f *testing.F) {
	for _, h := range []hash{
		{"u1": {N: map[string]int{"1": 2, "2": 1}, I: `{"name":"Ann"}`}},
		{"": {N: map[string]int{"3": 1}}},
		{},
	} {
		b, _ := json.Marshal(h)
		f.Add(b, 1)
	}
	f.Add([]byte(`{"u":null,"v":{"n":null},"w":{"n":{"1":-5}}}`), -1)
	f.Add([]byte(`[]`), 1)
	f.Fuzz(func(t *testing.T, value []byte, delta int) {
		h := decode(value)
		for field, e := range h {
			before := e.N["1"]
			e.N["1"] += delta
			if e.N["1"]-before != delta {
				t.Fatalf("field %q: share moved by %d, want %d", field, e.N["1"]-before, delta)
			}
			e.total()
		}
		h = decode(value)
		setKey(h, "k", "1", map[string]share{"u": {n: 2}})
		for field, e := range h {
			if want := map[bool]int{true: 2}[field == "u"]; e.N["1"] != want {
				t.Fatalf("after setKey, field %q holds share %d of node 1, want %d", field, e.N["1"], want)
			}
		}
	})
}

// FuzzSplitKey: every pair of names survives the trip into a key and back,
// whatever they hold, and the key is valid for a bucket.
func FuzzSplitKey(f *testing.F) {
	f.Add("app", "presence-room.1")
	f.Add("1", "#watchlist-u")
	f.Add("a", "ü ünïcode *>")
	f.Fuzz(func(t *testing.T, a, b string) {
		if a == "" || b == "" {
			return
		}
		k := key(a, b)
		for _, r := range k {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
				t.Fatalf("key %q of (%q, %q) holds %q", k, a, b, r)
			}
		}
		if x, y, ok := splitKey(k); !ok || x != a || y != b {
			t.Fatalf("splitKey(key(%q, %q)) = %q, %q, %v", a, b, x, y, ok)
		}
	})
}
