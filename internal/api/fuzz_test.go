package api

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/roostproject/roost/internal/hub"
)

// FuzzEventsBody posts arbitrary, correctly signed bodies to /events: the
// handler must never panic nor fail with 5xx, must publish nothing unless it
// answers 200, and may answer 200 only for a body an independent reading of
// "POST event" accepts, publishing exactly what the body says.
func FuzzEventsBody(f *testing.F) {
	for _, r := range loadSDKRequests(f) {
		if strings.Contains(r.URL, "/events?") {
			f.Add(r.Body)
		}
	}
	for _, s := range []string{
		`{"name":"foo","channels":["project-3"],"data":"{\"some\":\"data\"}"}`,
		`{"name":"e","channel":"presence-x","data":"d","socket_id":"1.2","info":"user_count"}`,
		`{"name":"e","channel":"c","data":{"a":1}}`,
		`{"name":"e","channels":["a","a","#server-to-user-"],"data":"\u00e9\ud83d\ude00"}`,
		`{"NAME":"e","Channel":"c","data":"d","name":"f"}`,
		`{"name":"e","channel":"c","data":"d","socket_id":"01.x"}`,
		`[]`, ``, `null`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		fx := newFixture(t, nil)
		rec := fx.call("POST", "/apps/3/events", body)
		pubs := fx.backend.publications()
		if rec.Code >= 500 {
			t.Fatalf("status %d for %q", rec.Code, body)
		}
		if rec.Code != 200 {
			if len(pubs) != 0 {
				t.Fatalf("status %d but published %+v", rec.Code, pubs)
			}
			return
		}
		if len(pubs) != 1 {
			t.Fatalf("200 but published %d events", len(pubs))
		}
		if err := oracle(body, pubs[0]); err != "" {
			t.Fatalf("200 for %q: %s", body, err)
		}
	})
}

// Name rules of docs/protocol.md, "Channels", restated independently of package
// pusher.
var (
	channelRE  = regexp.MustCompile(`^[A-Za-z0-9_\-=@,.;]{1,200}$`)
	userChanRE = regexp.MustCompile(`^#server-to-user-.+$`)
	socketIDRE = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)
)

// oracle checks that an accepted body is a valid event and that p is what it
// asks for; it returns a complaint, or "" when all is well.
func oracle(body string, p hub.Publication) string {
	fields, ok := foldFields(body)
	if !ok {
		return "body is not a JSON object"
	}
	var name, data, channel, socketID string
	var channels []string
	var dataSet bool
	for k, raw := range fields {
		switch k {
		case "name":
			json.Unmarshal(raw, &name)
		case "data":
			dataSet = string(raw) != "null" && json.Unmarshal(raw, &data) == nil
			if string(raw) != "null" && raw[0] != '"' {
				return "data is not a string"
			}
		case "channel":
			json.Unmarshal(raw, &channel)
		case "channels":
			json.Unmarshal(raw, &channels)
		case "socket_id":
			json.Unmarshal(raw, &socketID)
		}
	}
	switch {
	case name == "" || utf8.RuneCountInString(name) > 200 || name != p.Event:
		return "bad or mispublished name"
	case !dataSet || len(data) > 10<<10 || data != p.Data:
		return "bad or mispublished data"
	case socketID != "" && !socketIDRE.MatchString(socketID), socketID != p.SocketID:
		return "bad or mispublished socket_id"
	}
	return checkTargets(channel, channels, p.Channels)
}

// checkTargets checks the channel/channels rules and that got publishes each
// requested name exactly once.
func checkTargets(channel string, channels, got []string) string {
	if channel != "" {
		if len(channels) > 0 {
			return "both channel and channels"
		}
		channels = []string{channel}
	}
	if len(channels) == 0 || len(channels) > 100 {
		return "channel count out of range"
	}
	for _, c := range channels {
		if !channelRE.MatchString(c) && !userChanRE.MatchString(c) {
			return "invalid channel " + c
		}
		if !slices.Contains(got, c) {
			return "channel not published: " + c
		}
	}
	if len(got) != len(slices.Compact(slices.Sorted(slices.Values(got)))) || len(got) > len(channels) {
		return "published a channel twice or one not asked for"
	}
	return ""
}

// foldFields reads a JSON object as encoding/json matches struct fields: keys
// case-insensitively (Unicode simple folding), the last duplicate winning.
// Keys come back as the event field names they match; others are dropped.
func foldFields(body string) (map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(strings.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		for _, field := range []string{"name", "data", "channel", "channels", "socket_id"} {
			if strings.EqualFold(tok.(string), field) {
				out[field] = raw
			}
		}
	}
	return out, true
}
