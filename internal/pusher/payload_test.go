package pusher

import (
	"encoding/json"
	"testing"
)

// dataOf returns the data of one of the seed messages.
func dataOf(t *testing.T, msg string) json.RawMessage {
	t.Helper()
	m, err := ParseMessage([]byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	return m.Data
}

func TestParseSubscribe(t *testing.T) {
	tests := []struct {
		name string
		data string
		want Subscribe
		err  string
	}{
		{"public", string(dataOf(t, msgSubscribePublic)), Subscribe{Channel: "my-channel"}, ""},
		{"private", string(dataOf(t, msgSubscribePrivate)), Subscribe{Channel: "private-foobar", Auth: "278d425bdf160c739803:58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4"}, ""},
		{"presence", string(dataOf(t, msgSubscribePresence)), Subscribe{Channel: "presence-foobar",
			Auth:        "278d425bdf160c739803:31935e7d86dba64c2a90aed31fdc61869f9b22ba9d8863bba239c03ca481bc80",
			ChannelData: `{"user_id":10,"user_info":{"name":"Mr. Channels"}}`}, ""},
		{"data as a string", `"{\"channel\":\"a\"}"`, Subscribe{Channel: "a"}, ""},
		{"null fields", `{"channel":"a","auth":null,"channel_data":null}`, Subscribe{Channel: "a"}, ""},
		{"no channel", `{"auth":""}`, Subscribe{}, "has no channel"},
		{"auth not a string", `{"channel":"a","auth":1}`, Subscribe{}, "auth must be a string"},
		{"channel_data as object", `{"channel":"a","channel_data":{"user_id":1}}`, Subscribe{}, "channel_data must be a string"},
		{"absent", ``, Subscribe{}, "must be a JSON object"},
		{"array", `[]`, Subscribe{}, "must be a JSON object"},
		{"string of garbage", `"nope"`, Subscribe{}, "must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSubscribe(json.RawMessage(tt.data))
			if !errorMatches(err, tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if err == nil && got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseUnsubscribe(t *testing.T) {
	if ch, err := ParseUnsubscribe(dataOf(t, msgUnsubscribe)); err != nil || ch != "my-channel" {
		t.Fatalf("got %q, %v", ch, err)
	}
	for _, bad := range []string{`{}`, `{"channel":2}`, `1`, ``} {
		if _, err := ParseUnsubscribe(json.RawMessage(bad)); err == nil {
			t.Errorf("ParseUnsubscribe(%s) accepted", bad)
		}
	}
}

func TestParseSignin(t *testing.T) {
	s, err := ParseSignin(dataOf(t, msgSignin))
	want := Signin{Auth: "278d425bdf160c739803:0f4e", UserData: `{"id":"u1","user_info":{"name":"Ann"},"watchlist":["u2","u3"]}`}
	if err != nil || s != want {
		t.Fatalf("got %+v, %v", s, err)
	}
	for bad, says := range map[string]string{
		`{"user_data":"{}"}`:            "no auth",
		`{"auth":"k:s"}`:                "no user_data",
		`{"auth":"k:s","user_data":{}}`: "user_data must be a string",
	} {
		if _, err := ParseSignin(json.RawMessage(bad)); !errorMatches(err, says) {
			t.Errorf("ParseSignin(%s) = %v, want %q", bad, err, says)
		}
	}
}
