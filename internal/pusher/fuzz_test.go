package pusher

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzParseMessage checks ParseMessage against encoding/json decoding into a
// map (whose keys, unlike struct fields, match exactly): whatever it accepts,
// encoding/json reads the same event and channel, and the payload decoders
// never panic on the data.
func FuzzParseMessage(f *testing.F) {
	for _, m := range seedMessages {
		f.Add([]byte(m))
	}
	f.Add([]byte(`{"event":"e","channel":null,"data":"{\"channel\":\"x\"}"}`))
	f.Add([]byte(`{"\u0065vent":"\ud83d\ude00","data":[{"}":"]"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseMessage(b)
		if err != nil {
			return
		}
		var ref map[string]json.RawMessage // exact keys, last duplicate wins
		if err := json.Unmarshal(b, &ref); err != nil {
			t.Fatalf("accepted what encoding/json refuses: %v", err)
		}
		if event := refString(t, ref["event"]); event != m.Event {
			t.Fatalf("event %q, encoding/json read %q", m.Event, event)
		}
		if channel := refString(t, ref["channel"]); channel != m.Channel {
			t.Fatalf("channel %q, encoding/json read %q", m.Channel, channel)
		}
		if m.Data != nil && !json.Valid(m.Data) {
			t.Fatalf("data %q is not valid JSON", m.Data)
		}
		_, _ = ParseSubscribe(m.Data)
		_, _ = ParseUnsubscribe(m.Data)
		_, _ = ParseSignin(m.Data)
	})
}

// refString decodes a raw JSON string with encoding/json ("" if absent).
func refString(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s *string
	if raw != nil {
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
	}
	if s == nil {
		return ""
	}
	return *s
}

// FuzzParseChannelData checks the limits hold for everything accepted and
// that a string user_id matches what encoding/json reads.
func FuzzParseChannelData(f *testing.F) {
	f.Add(`{"user_id":10,"user_info":{"name":"Mr. Channels"}}`)
	f.Add(`{"user_id":"u-1","user_info":null}`)
	f.Add(`{"user_id":1e3}`)
	f.Add(`{"user_id":"\u00e9\ud83d\ude00"}`)
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseChannelData(s)
		if err != nil {
			return
		}
		if m.UserID == "" || utf8.RuneCountInString(m.UserID) > MaxUserIDLength || len(m.UserInfo) > MaxUserInfoBytes {
			t.Fatalf("limits broken: %q, %d bytes of info", m.UserID, len(m.UserInfo))
		}
		if m.UserInfo != nil && !json.Valid(m.UserInfo) {
			t.Fatalf("user_info %q is not valid JSON", m.UserInfo)
		}
		var ref map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &ref); err != nil {
			t.Fatalf("accepted what encoding/json refuses: %v", err)
		}
		if raw := ref["user_id"]; raw[0] == '"' && refString(t, raw) != m.UserID {
			t.Fatalf("user_id %q, encoding/json read %s", m.UserID, raw)
		}
	})
}

// FuzzParseUserData checks accepted user_data against encoding/json.
func FuzzParseUserData(f *testing.F) {
	f.Add(`{"id":"u1","user_info":{"name":"Ann"},"watchlist":["u2","u3"]}`)
	f.Add(`{"id":"u1","watchlist":null}`)
	f.Add(`{"id":"\u0075\u0031","watchlist":[]}`)
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseUserData(s)
		if err != nil {
			return
		}
		var ref map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &ref); err != nil {
			t.Fatalf("accepted what encoding/json refuses: %v", err)
		}
		var watchlist []string
		if err := json.Unmarshal(ref["watchlist"], &watchlist); ref["watchlist"] != nil && err != nil {
			t.Fatalf("watchlist: %v", err)
		}
		if refString(t, ref["id"]) != u.ID || len(watchlist) != len(u.Watchlist) || u.Raw != s {
			t.Fatalf("got %+v, encoding/json read %s", u, ref)
		}
	})
}

// FuzzAppendEvent is the round-trip property: what AppendEvent writes,
// json.Unmarshal reads back as the same strings (invalid UTF-8 bytes each
// becoming U+FFFD, as Go's range over a string sees them).
func FuzzAppendEvent(f *testing.F) {
	f.Add("my-event", "my-channel", `{"some":"data"}`, "u1")
	f.Add("client-\u2028", "", "\x00\xff\"\\</script>", "")
	f.Fuzz(func(t *testing.T, event, channel, data, userID string) {
		var got struct {
			Event, Channel, Data string
			UserID               string `json:"user_id"`
		}
		for i, b := range [][]byte{
			AppendEvent(nil, event, channel, data),
			AppendEventUser(nil, event, channel, data, userID),
		} {
			got.UserID = ""
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("invalid JSON %q: %v", b, err)
			}
			if got.Event != valid(event) || got.Channel != valid(channel) || got.Data != valid(data) ||
				(i == 1 && got.UserID != valid(userID)) {
				t.Fatalf("round trip of %q gave %+v", b, got)
			}
		}
	})
}

// valid replaces each byte of invalid UTF-8 in s with U+FFFD.
func valid(s string) string { return string([]rune(s)) }
