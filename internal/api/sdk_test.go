package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/hub"
)

// TestDocsSignatureVector replays the example of the Pusher HTTP API
// reference, "Worked authentication example": app 3, timestamp 1353088179.
func TestDocsSignatureVector(t *testing.T) {
	const body = `{"name":"foo","channels":["project-3"],"data":"{\"some\":\"data\"}"}`
	const query = "auth_key=278d425bdf160c739803&auth_timestamp=1353088179&auth_version=1.0" +
		"&body_md5=ec365a775a4cd0599faeb73354201b6f" +
		"&auth_signature=da454824c97ba181a32ccc17a72625ba02771f50b50e1e7430e47a1f3f457e6c"
	f := newFixture(t, nil)
	wantJSON(t, f.do(httpRequest("POST", "/apps/3/events?"+query, body)), `{}`)
	want := hub.Publication{Channels: []string{"project-3"}, Event: "foo", Data: `{"some":"data"}`}
	if pubs := f.backend.publications(); len(pubs) != 1 || !samePublication(pubs[0], want) {
		t.Fatalf("published %+v, want %+v", pubs, want)
	}
	bad := strings.Replace(query, "da454824", "da454825", 1)
	wantStatus(t, f.do(httpRequest("POST", "/apps/3/events?"+bad, body)), http.StatusUnauthorized)
}

// samePublication compares two publications field by field.
func samePublication(a, b hub.Publication) bool {
	return slices.Equal(a.Channels, b.Channels) && a.Event == b.Event && a.Data == b.Data &&
		a.SocketID == b.SocketID && a.UserID == b.UserID
}

// sdkRequest is one request the Node SDK `pusher` 5.3.4 sent, captured by
// pointing it at a recording server with Date.now fixed at testEpoch.
type sdkRequest struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	Body   string `json:"body"`
}

// loadSDKRequests reads the captured requests, in the order the test script
// made them: trigger, trigger with socket_id and info, triggerBatch,
// sendToUser, terminateUserConnections, then four GETs.
func loadSDKRequests(t testing.TB) []sdkRequest {
	t.Helper()
	b, err := os.ReadFile("testdata/node_sdk_5.3.4_requests.json")
	if err != nil {
		t.Fatal(err)
	}
	var reqs []sdkRequest
	if err := json.Unmarshal(b, &reqs); err != nil {
		t.Fatal(err)
	}
	return reqs
}

// replay serves one captured SDK request.
func (f *fixture) replay(r sdkRequest) *httptest.ResponseRecorder {
	req := httpRequest(r.Method, r.URL, r.Body)
	if r.Body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return f.do(req)
}

func TestNodeSDKRequests(t *testing.T) {
	reqs := loadSDKRequests(t)
	f := newFixture(t, nil)
	f.backend.stats["a"] = hub.ChannelStats{Name: "a", Occupied: true, SubscriptionCount: 2}
	f.backend.stats["presence-b"] = hub.ChannelStats{Name: "presence-b", Occupied: true, SubscriptionCount: 3, UserCount: 2}
	f.backend.stats["presence-x"] = hub.ChannelStats{Name: "presence-x", Occupied: true, SubscriptionCount: 5, UserCount: 4}
	f.backend.stats["presence-room-42"] = hub.ChannelStats{Name: "presence-room-42", Occupied: true, SubscriptionCount: 27, UserCount: 14}
	f.backend.members["presence-room-42"] = []string{"u1", "u2"}
	want := []string{
		`{}`,
		`{"channels":{"a":{"subscription_count":2},"presence-b":{"subscription_count":3,"user_count":2}}}`,
		`{"batch":[{},{"user_count":4}]}`,
		`{}`,
		`{}`,
		`{"channels":{"presence-b":{"user_count":2},"presence-room-42":{"user_count":14},"presence-x":{"user_count":4}}}`,
		`{"occupied":true,"subscription_count":27,"user_count":14}`,
		`{"users":[{"id":"u1"},{"id":"u2"}]}`,
		`{"channels":{"a":{},"presence-b":{},"presence-room-42":{},"presence-x":{}}}`,
	}
	if len(reqs) != len(want) {
		t.Fatalf("%d captured requests, want %d", len(reqs), len(want))
	}
	for i, r := range reqs {
		t.Run(r.Method+" "+r.URL[:strings.IndexByte(r.URL, '?')], func(t *testing.T) {
			wantJSON(t, f.replay(r), want[i])
		})
	}
	wantPubs := []hub.Publication{
		{Channels: []string{"my-channel"}, Event: "my-event", Data: `{"message":"hello world"}`},
		{Channels: []string{"a", "presence-b"}, Event: "ev", Data: "plain string", SocketID: "123.456"},
		{Channels: []string{"integration"}, Event: "event", Data: `{"hello":"world"}`},
		{Channels: []string{"presence-x"}, Event: "event2", Data: "x"},
		{Channels: []string{"#server-to-user-abc123"}, Event: "halo", Data: `{"foo":"bar"}`},
	}
	pubs := f.backend.publications()
	if !slices.EqualFunc(pubs, wantPubs, samePublication) {
		t.Errorf("published\n%+v\nwant\n%+v", pubs, wantPubs)
	}
	if !slices.Equal(f.backend.terminated, []string{"abc123"}) {
		t.Errorf("terminated %v, want [abc123]", f.backend.terminated)
	}
}
