package natsstore

import (
	"encoding/json"
	"testing"
)

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
