package pusher

import (
	"slices"
	"strings"
	"testing"
)

func TestParseUserData(t *testing.T) {
	tests := []struct {
		in        string
		id        string
		watchlist []string
		err       string
	}{
		{`{"id":"u1","user_info":{"name":"Ann"},"watchlist":["u2","u3"]}`, "u1", []string{"u2", "u3"}, ""},
		{`{"id":"u1","watchlist":["u2","u3","u2"]}`, "u1", []string{"u2", "u3"}, ""},
		{`{"id":"u1"}`, "u1", nil, ""},
		{`{"id":"u1","watchlist":null}`, "u1", nil, ""},
		{`{"id":""}`, "", nil, "non-empty string"},
		{`{"id":7}`, "", nil, "non-empty string"},
		{`{"name":"x"}`, "", nil, "non-empty string"},
		{`{"id":"` + strings.Repeat("é", 129) + `"}`, "", nil, "longer than 128"},
		{`{"id":"u1","watchlist":["a",2]}`, "", nil, "array of user id strings"},
		{`{"id":"u1","watchlist":"a"}`, "", nil, "array of user id strings"},
		{`[]`, "", nil, "JSON object"},
		{`{"id":"u1"`, "", nil, "JSON object"},
	}
	for _, tt := range tests {
		u, err := ParseUserData(tt.in)
		if !errorMatches(err, tt.err) {
			t.Errorf("ParseUserData(%s) err = %v, want %q", tt.in, err, tt.err)
			continue
		}
		if err == nil && (u.ID != tt.id || !slices.Equal(u.Watchlist, tt.watchlist) || u.Raw != tt.in) {
			t.Errorf("ParseUserData(%s) = %+v", tt.in, u)
		}
	}
	if _, err := ParseUserData(`{"id":"` + strings.Repeat("é", 128) + `"}`); err != nil {
		t.Errorf("128 characters refused: %v", err)
	}
}

func TestParseChannelData(t *testing.T) {
	tests := []struct {
		in, id, info, err string
	}{
		{`{"user_id":10,"user_info":{"name":"Mr. Channels"}}`, "10", `{"name":"Mr. Channels"}`, ""},
		{`{"user_id":"u-1"}`, "u-1", ``, ""},
		{`{"user_id":"u-1","user_info":null}`, "u-1", ``, ""},
		{`{"user_id":-3}`, "-3", ``, ""},
		{`{"user_id":10.0}`, "10", ``, ""},
		{`{"user_id":1e3}`, "1000", ``, ""},
		{`{"user_id":-0}`, "0", ``, ""},
		{`{"user_id":1.5}`, "", ``, "string or an integer"},
		{`{"user_id":1e300}`, "", ``, "string or an integer"},
		{`{"user_id":""}`, "", ``, "string or an integer"},
		{`{"user_id":true}`, "", ``, "string or an integer"},
		{`{"user_info":{}}`, "", ``, "string or an integer"},
		{`{"user_id":"` + strings.Repeat("x", 129) + `"}`, "", ``, "longer than 128"},
		{`{"user_id":"a","user_info":"` + strings.Repeat("x", 1023) + `"}`, "", ``, "larger than 1024"},
		{`"{}"`, "", ``, "JSON object"},
		{``, "", ``, "JSON object"},
	}
	for _, tt := range tests {
		m, err := ParseChannelData(tt.in)
		if !errorMatches(err, tt.err) {
			t.Errorf("ParseChannelData(%s) err = %v, want %q", tt.in, err, tt.err)
			continue
		}
		if err == nil && (m.UserID != tt.id || string(m.UserInfo) != tt.info) {
			t.Errorf("ParseChannelData(%s) = %q, %s", tt.in, m.UserID, m.UserInfo)
		}
	}
}
