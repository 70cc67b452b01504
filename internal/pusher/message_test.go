package pusher

import (
	"strings"
	"testing"
)

func TestParseMessage(t *testing.T) {
	tests := []struct {
		name, in string
		want     Message
		err      string
	}{
		{"subscribe", msgSubscribePublic, Message{Event: "pusher:subscribe", Data: []byte(`{"auth":"","channel":"my-channel"}`)}, ""},
		{"ping", msgPing, Message{Event: "pusher:ping", Data: []byte(`{}`)}, ""},
		{"client event", msgClientEvent, Message{Event: "client-typing", Channel: "private-chat", Data: []byte(`{"user":"alice","text":"h\u00e9llo \"you\""}`)}, ""},
		{"string data", `{"event":"client-x","channel":"private-a","data":"{\"a\":1}"}`, Message{Event: "client-x", Channel: "private-a", Data: []byte(`"{\"a\":1}"`)}, ""},
		{"no data", `{"event":"pusher:ping"}`, Message{Event: "pusher:ping"}, ""},
		{"white space and unknown fields", " {\n\"x\" : [1,{\"y\":\"}\"}], \"event\" : \"e\" , \"user_id\":\"u\" }\t", Message{Event: "e", UserID: "u"}, ""},
		{"escaped key and value", `{"\u0065vent":"a\/b\u00e9"}`, Message{Event: "a/bé"}, ""},
		{"last duplicate wins", `{"event":"a","event":"b"}`, Message{Event: "b"}, ""},
		{"null channel", `{"event":"e","channel":null}`, Message{Event: "e"}, ""},
		{"keys are case-sensitive", `{"Event":"e"}`, Message{}, "no event name"},
		{"not JSON", `{"event":`, Message{}, "not valid JSON"},
		{"two values", `{"event":"a"} {}`, Message{}, "not valid JSON"},
		{"array", `["event"]`, Message{}, "JSON object"},
		{"event not a string", `{"event":5}`, Message{}, "event name must be a string"},
		{"channel not a string", `{"event":"e","channel":{}}`, Message{}, "channel must be a string"},
		{"empty", ``, Message{}, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMessage([]byte(tt.in))
			if !errorMatches(err, tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if got.Event != tt.want.Event || got.Channel != tt.want.Channel ||
				string(got.Data) != string(tt.want.Data) || got.UserID != tt.want.UserID {
				t.Fatalf("got %+v (data %s), want %+v (data %s)", got, got.Data, tt.want, tt.want.Data)
			}
		})
	}
}

// errorMatches reports whether err is nil when want is "", or contains want.
func errorMatches(err error, want string) bool {
	if want == "" || err == nil {
		return (want == "") == (err == nil)
	}
	return strings.Contains(err.Error(), want)
}

// TestErrorsAreSentences keeps decoder errors fit for a pusher:error.
func TestErrorsAreSentences(t *testing.T) {
	for _, in := range []string{`x`, `[]`, `{}`, `{"event":1}`} {
		_, err := ParseMessage([]byte(in))
		if msg := err.Error(); msg[0] < 'A' || msg[0] > 'Z' || !strings.HasSuffix(msg, ".") {
			t.Errorf("ParseMessage(%s) error %q is not a sentence", in, msg)
		}
	}
}
