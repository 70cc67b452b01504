package pusher

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"
)

// pusherJSDecode reads a server message the way pusher-js protocol.ts
// decodeMessage does: parse it, then parse data again if it is a string.
func pusherJSDecode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	if s, ok := m["data"].(string); ok {
		var inner any
		if json.Unmarshal([]byte(s), &inner) == nil {
			m["data"] = inner
		}
	}
	return m
}

func TestEncoders(t *testing.T) {
	info := json.RawMessage(`{"name":"Mr. Channels"}`)
	tests := []struct {
		name string
		got  []byte
		wire string
		want map[string]any
	}{
		{"event", AppendEvent(nil, "my-event", "my-channel", `{"some":"data"}`),
			`{"event":"my-event","channel":"my-channel","data":"{\"some\":\"data\"}"}`,
			obj("event", "my-event", "channel", "my-channel", "data", obj("some", "data"))},
		{"event without channel", AppendEvent(nil, "e", "", "plain text"), `{"event":"e","data":"plain text"}`,
			obj("event", "e", "data", "plain text")},
		{"event with user", AppendEventUser(nil, "client-x", "presence-a", `{"t":1}`, "u1"),
			`{"event":"client-x","channel":"presence-a","data":"{\"t\":1}","user_id":"u1"}`,
			obj("event", "client-x", "channel", "presence-a", "data", obj("t", 1.0), "user_id", "u1")},
		{"raw event", AppendRawEvent(nil, "client-x", "private-a", []byte(`{"t":1}`)),
			`{"event":"client-x","channel":"private-a","data":{"t":1}}`,
			obj("event", "client-x", "channel", "private-a", "data", obj("t", 1.0))},
		{"raw event with user", AppendRawEventUser(nil, "client-x", "presence-a", []byte(`[1]`), "9"),
			`{"event":"client-x","channel":"presence-a","data":[1],"user_id":"9"}`,
			obj("event", "client-x", "channel", "presence-a", "data", []any{1.0}, "user_id", "9")},
		{"raw event without data", AppendRawEvent(nil, "e", "c", nil), `{"event":"e","channel":"c"}`,
			obj("event", "e", "channel", "c")},
		{"error", AppendError(nil, AppNotFound, `No app "x".`),
			`{"event":"pusher:error","data":{"code":4001,"message":"No app \"x\"."}}`,
			obj("event", "pusher:error", "data", obj("code", 4001.0, "message", `No app "x".`))},
		{"error without code", AppendError(nil, NoCode, "Bad."), `{"event":"pusher:error","data":{"code":null,"message":"Bad."}}`,
			obj("event", "pusher:error", "data", obj("code", nil, "message", "Bad."))},
		{"connection established", ConnectionEstablished(nil, "123.456", 120),
			`{"event":"pusher:connection_established","data":"{\"socket_id\":\"123.456\",\"activity_timeout\":120}"}`,
			obj("event", "pusher:connection_established", "data", obj("socket_id", "123.456", "activity_timeout", 120.0))},
		{"ping", AppendPing(nil), `{"event":"pusher:ping","data":"{}"}`, obj("event", "pusher:ping", "data", obj())},
		{"pong", AppendPong(nil), `{"event":"pusher:pong","data":"{}"}`, obj("event", "pusher:pong", "data", obj())},
		{"subscription succeeded", AppendSubscriptionSucceeded(nil, "private-a"),
			`{"event":"pusher_internal:subscription_succeeded","channel":"private-a","data":"{}"}`,
			obj("event", "pusher_internal:subscription_succeeded", "channel", "private-a", "data", obj())},
		{"subscription error", AppendSubscriptionError(nil, "private-a", "Invalid signature.", 401),
			`{"event":"pusher:subscription_error","channel":"private-a","data":{"type":"AuthError","error":"Invalid signature.","status":401}}`,
			obj("event", "pusher:subscription_error", "channel", "private-a", "data", obj("type", "AuthError", "error", "Invalid signature.", "status", 401.0))},
		{"member added", AppendMemberAdded(nil, "presence-a", Member{UserID: "10", UserInfo: info}),
			`{"event":"pusher_internal:member_added","channel":"presence-a","data":"{\"user_id\":\"10\",\"user_info\":{\"name\":\"Mr. Channels\"}}"}`,
			obj("event", "pusher_internal:member_added", "channel", "presence-a", "data", obj("user_id", "10", "user_info", obj("name", "Mr. Channels")))},
		{"member added without info", AppendMemberAdded(nil, "presence-a", Member{UserID: "u"}),
			`{"event":"pusher_internal:member_added","channel":"presence-a","data":"{\"user_id\":\"u\",\"user_info\":null}"}`,
			obj("event", "pusher_internal:member_added", "channel", "presence-a", "data", obj("user_id", "u", "user_info", nil))},
		{"member removed", AppendMemberRemoved(nil, "presence-a", "10"),
			`{"event":"pusher_internal:member_removed","channel":"presence-a","data":"{\"user_id\":\"10\"}"}`,
			obj("event", "pusher_internal:member_removed", "channel", "presence-a", "data", obj("user_id", "10"))},
		{"signin success", AppendSigninSuccess(nil, `{"id":"u1"}`),
			`{"event":"pusher:signin_success","data":"{\"user_data\":\"{\\\"id\\\":\\\"u1\\\"}\"}"}`,
			obj("event", "pusher:signin_success", "data", obj("user_data", `{"id":"u1"}`))},
		{"watchlist both", AppendWatchlistEvents(nil, []string{"a", "b"}, []string{"c"}),
			`{"event":"pusher_internal:watchlist_events","data":"{\"events\":[{\"name\":\"online\",\"user_ids\":[\"a\",\"b\"]},{\"name\":\"offline\",\"user_ids\":[\"c\"]}]}"}`,
			obj("event", "pusher_internal:watchlist_events", "data", obj("events", []any{
				obj("name", "online", "user_ids", []any{"a", "b"}), obj("name", "offline", "user_ids", []any{"c"})}))},
		{"watchlist offline only", AppendWatchlistEvents(nil, nil, []string{"c"}),
			`{"event":"pusher_internal:watchlist_events","data":"{\"events\":[{\"name\":\"offline\",\"user_ids\":[\"c\"]}]}"}`,
			obj("event", "pusher_internal:watchlist_events", "data", obj("events", []any{obj("name", "offline", "user_ids", []any{"c"})}))},
		{"subscription count", AppendSubscriptionCount(nil, "my-channel", 42),
			`{"event":"pusher_internal:subscription_count","channel":"my-channel","data":"{\"subscription_count\":42}"}`,
			obj("event", "pusher_internal:subscription_count", "channel", "my-channel", "data", obj("subscription_count", 42.0))},
		{"cache miss", AppendCacheMiss(nil, "cache-a"), `{"event":"pusher:cache_miss","channel":"cache-a"}`,
			obj("event", "pusher:cache_miss", "channel", "cache-a")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if string(tt.got) != tt.wire {
				t.Errorf("wire:\n got %s\nwant %s", tt.got, tt.wire)
			}
			if got := pusherJSDecode(t, tt.got); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("pusher-js sees %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestAppendPresenceSucceeded(t *testing.T) {
	members := map[string]json.RawMessage{"10": json.RawMessage(`{"name":"Mr. Channels"}`), "u\"2": nil}
	got := pusherJSDecode(t, AppendPresenceSucceeded(nil, "presence-a", maps.All(members)))
	presence := got["data"].(map[string]any)["presence"].(map[string]any)
	ids := presence["ids"].([]any)
	if len(ids) != 2 || presence["count"] != 2.0 {
		t.Fatalf("presence = %#v", presence)
	}
	want := obj("10", obj("name", "Mr. Channels"), `u"2`, nil)
	if !reflect.DeepEqual(presence["hash"], want) {
		t.Fatalf("hash = %#v, want %#v", presence["hash"], want)
	}
	empty := pusherJSDecode(t, AppendPresenceSucceeded(nil, "presence-a", maps.All(map[string]json.RawMessage{})))
	if want := obj("presence", obj("ids", []any{}, "hash", obj(), "count", 0.0)); !reflect.DeepEqual(empty["data"], want) {
		t.Fatalf("empty presence = %#v", empty["data"])
	}
}

// TestAppendKeepsPrefix checks that encoders append rather than overwrite.
func TestAppendKeepsPrefix(t *testing.T) {
	dst := AppendPing([]byte("prefix"))
	dst = AppendMemberRemoved(dst, "presence-a", "x")
	want := `prefix{"event":"pusher:ping","data":"{}"}{"event":"pusher_internal:member_removed","channel":"presence-a","data":"{\"user_id\":\"x\"}"}`
	if string(dst) != want {
		t.Fatalf("got %s", dst)
	}
}

// obj builds a map from alternating keys and values.
func obj(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}
