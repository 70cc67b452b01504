package api

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/hub"
)

// statsFixture is a fixture whose backend knows a few channels.
func statsFixture(t *testing.T) *fixture {
	f := newFixture(t, nil)
	for _, st := range []hub.ChannelStats{
		{Name: "public", Occupied: true, SubscriptionCount: 3},
		{Name: "private-p", Occupied: true, SubscriptionCount: 1},
		{Name: "presence-room", Occupied: true, SubscriptionCount: 5, UserCount: 2},
		{Name: "cache-news", Occupied: true, SubscriptionCount: 7},
		{Name: "empty"},
	} {
		f.backend.stats[st.Name] = st
	}
	f.backend.members["presence-room"] = []string{"alice", "bob \"the\" builder"}
	return f
}

func TestChannelQuery(t *testing.T) {
	tests := []struct {
		target string
		status int
		body   string
	}{
		{"/apps/3/channels/public", 200, `{"occupied":true}`},
		{"/apps/3/channels/public?info=subscription_count", 200, `{"occupied":true,"subscription_count":3}`},
		{"/apps/3/channels/empty?info=subscription_count", 200, `{"occupied":false,"subscription_count":0}`},
		{"/apps/3/channels/never-seen", 200, `{"occupied":false}`},
		{"/apps/3/channels/presence-room?info=user_count,subscription_count", 200, `{"occupied":true,"subscription_count":5,"user_count":2}`},
		{"/apps/3/channels/presence-room?info=user_count", 200, `{"occupied":true,"user_count":2}`},
		{"/apps/3/channels/cache-news?info=cache", 200, `{"cache":null,"occupied":true}`},
		{"/apps/3/channels/public?info=user_count", 400, ""},
		{"/apps/3/channels/public?info=cache", 400, ""},
		{"/apps/3/channels/public?info=bogus", 400, ""},
		{"/apps/3/channels/bad%20name", 400, ""},
	}
	f := statsFixture(t)
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			rec := f.call("GET", tt.target, "")
			if tt.status != 200 {
				wantStatus(t, rec, tt.status)
				return
			}
			wantJSON(t, rec, tt.body)
		})
	}
}

func TestChannelQueryCache(t *testing.T) {
	b := &fakeBackend{stats: map[string]hub.ChannelStats{"cache-news": {Name: "cache-news", Occupied: true}}}
	f := newFixture(t, func(c *Config) {
		c.Backend = cachingBackend{fakeBackend: b, cache: map[string]string{"cache-news": `{"n":1}`}}
	})
	wantJSON(t, f.call("GET", "/apps/3/channels/cache-news?info=cache", ""),
		`{"cache":{"data":"{\"n\":1}","ttl":1800},"occupied":true}`)
	wantJSON(t, f.call("GET", "/apps/3/channels/cache-empty?info=cache", ""), `{"cache":null,"occupied":false}`)
}

func TestChannelsQuery(t *testing.T) {
	tests := []struct {
		target string
		status int
		body   string
	}{
		{"/apps/3/channels", 200, `{"channels":{"cache-news":{},"presence-room":{},"private-p":{},"public":{}}}`},
		{"/apps/3/channels?filter_by_prefix=private-", 200, `{"channels":{"private-p":{}}}`},
		{"/apps/3/channels?filter_by_prefix=presence-&info=user_count", 200, `{"channels":{"presence-room":{"user_count":2}}}`},
		{"/apps/3/channels?info=subscription_count&filter_by_prefix=p", 200, `{"channels":{"presence-room":{"subscription_count":5},"private-p":{"subscription_count":1},"public":{"subscription_count":3}}}`},
		{"/apps/3/channels?filter_by_prefix=nothing-", 200, `{"channels":{}}`},
		{"/apps/3/channels?info=user_count", 400, ""},
		{"/apps/3/channels?filter_by_prefix=private-&info=user_count", 400, ""},
		{"/apps/3/channels?info=cache", 400, ""},
	}
	f := statsFixture(t)
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			rec := f.call("GET", tt.target, "")
			if tt.status != 200 {
				wantStatus(t, rec, tt.status)
				return
			}
			wantJSON(t, rec, tt.body)
		})
	}
}

func TestUsersQuery(t *testing.T) {
	f := statsFixture(t)
	wantJSON(t, f.call("GET", "/apps/3/channels/presence-room/users", ""),
		`{"users":[{"id":"alice"},{"id":"bob \"the\" builder"}]}`)
	wantJSON(t, f.call("GET", "/apps/3/channels/presence-nobody/users", ""), `{"users":[]}`)
	wantStatus(t, f.call("GET", "/apps/3/channels/public/users", ""), http.StatusBadRequest)
	wantStatus(t, f.call("GET", "/apps/3/channels/private-p/users", ""), http.StatusBadRequest)
}

// TestQueriesWhenStateDoesNotAnswer: a query the shared state does not
// answer is a 503 that says so; a publish asking for attributes is still
// published, and answered without them.
func TestQueriesWhenStateDoesNotAnswer(t *testing.T) {
	f := statsFixture(t)
	f.backend.queryErr = errors.New("the cluster's shared state did not answer")
	for _, target := range []string{"/apps/3/channels", "/apps/3/channels/public", "/apps/3/channels/presence-room/users"} {
		rec := f.call("GET", target, "")
		wantStatus(t, rec, http.StatusServiceUnavailable)
		if !strings.Contains(rec.Body.String(), "did not answer") {
			t.Errorf("GET %s: body %q does not say why", target, rec.Body.String())
		}
	}
	wantJSON(t, f.call("POST", "/apps/3/events", `{"name":"e","channel":"public","data":"d","info":"subscription_count"}`),
		`{"channels":{"public":{}}}`)
	if n := len(f.backend.publications()); n != 1 {
		t.Errorf("published %d events, want 1", n)
	}
}

func TestTerminateConnections(t *testing.T) {
	f := newFixture(t, nil)
	wantJSON(t, f.call("POST", "/apps/3/users/user%201/terminate_connections", "{}"), `{}`)
	if got := f.backend.terminated; len(got) != 1 || got[0] != "user 1" {
		t.Fatalf("terminated %q, want [\"user 1\"]", got)
	}
	if got := f.backend.terminates; !slices.Equal(got, []int{1}) {
		t.Fatalf("waited for the store with %v users terminated, want once, after the termination", got)
	}
	long := strings.Repeat("u", 129)
	wantStatus(t, f.call("POST", "/apps/3/users/"+long+"/terminate_connections", "{}"), http.StatusBadRequest)
	wantStatus(t, f.call("POST", "/apps/3/users/%FF/terminate_connections", "{}"), http.StatusBadRequest)
}

func TestEventsInfo(t *testing.T) {
	f := statsFixture(t)
	wantJSON(t, f.call("POST", "/apps/3/events",
		`{"name":"e","channels":["public","presence-room","public"],"data":"d","info":"user_count"}`),
		`{"channels":{"presence-room":{"user_count":2},"public":{}}}`)
	if pubs := f.backend.publications(); len(pubs) != 1 || len(pubs[0].Channels) != 2 {
		t.Errorf("repeated channel not published once: %+v", pubs)
	}
	wantJSON(t, f.call("POST", "/apps/3/events",
		`{"name":"e","channel":"never","data":"d","info":" subscription_count ,"}`),
		`{"channels":{"never":{"subscription_count":0}}}`)
}

func TestBatchInfo(t *testing.T) {
	f := statsFixture(t)
	wantJSON(t, f.call("POST", "/apps/3/batch_events", `{"batch":[`+
		`{"name":"e","channel":"public","data":"d","info":"subscription_count"},`+
		`{"name":"e","channel":"presence-room","data":"d"},`+
		`{"name":"e","channel":"presence-room","data":"d","info":"user_count,subscription_count"}]}`),
		`{"batch":[{"subscription_count":3},{},{"subscription_count":5,"user_count":2}]}`)
	if n := len(f.backend.publications()); n != 3 {
		t.Errorf("published %d events, want 3", n)
	}
	f.backend.mu.Lock()
	defer f.backend.mu.Unlock()
	if !slices.Equal(f.backend.waits, []int{3}) {
		t.Errorf("waited for the store after %v events, want once, after all 3", f.backend.waits)
	}
}

// TestEventWaitsForTheStore: an event's 200 follows the backend's wait for
// its store, so a subscriber on another node of a cluster finds it cached.
func TestEventWaitsForTheStore(t *testing.T) {
	f := statsFixture(t)
	wantJSON(t, f.call("POST", "/apps/3/events", `{"name":"e","channel":"public","data":"d"}`), `{}`)
	f.backend.mu.Lock()
	defer f.backend.mu.Unlock()
	if !slices.Equal(f.backend.waits, []int{1}) {
		t.Errorf("waited for the store after %v events, want once, after the event", f.backend.waits)
	}
}
