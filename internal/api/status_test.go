package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// channelList returns n distinct channel names as a JSON array.
func channelList(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf(`"c%d"`, i)
	}
	return "[" + strings.Join(names, ",") + "]"
}

// batchOf returns a batch body of n valid events.
func batchOf(n int) string {
	events := make([]string, n)
	for i := range events {
		events[i] = fmt.Sprintf(`{"name":"e","channel":"c%d","data":"d"}`, i)
	}
	return `{"batch":[` + strings.Join(events, ",") + `]}`
}

func TestEventsBodyStatus(t *testing.T) {
	long := strings.Repeat("n", 201)
	tests := []struct {
		name, body string
		status     int
		msg        string // a substring the error message must hold
	}{
		{"minimal", `{"name":"e","channel":"c","data":"d"}`, 200, ""},
		{"empty data", `{"name":"e","channel":"c","data":""}`, 200, ""},
		{"channels list", `{"name":"e","channels":["a","b"],"data":"d"}`, 200, ""},
		{"100 channels", `{"name":"e","channels":` + channelList(100) + `,"data":"d"}`, 200, ""},
		{"server to user", `{"name":"e","channels":["#server-to-user-u1"],"data":"d"}`, 200, ""},
		{"socket id", `{"name":"e","channel":"c","data":"d","socket_id":"123.456"}`, 200, ""},
		{"unknown field", `{"name":"e","channel":"c","data":"d","x":[1]}`, 200, ""},
		{"200 runes name", `{"name":"` + strings.Repeat("é", 200) + `","channel":"c","data":"d"}`, 200, ""},
		{"200 char name", `{"name":"` + long[:200] + `","channel":"c","data":"d"}`, 200, ""},
		{"malformed", `{"name":`, 400, "malformed JSON"},
		{"empty body", ``, 400, "malformed JSON"},
		{"not an object", `["e"]`, 400, "JSON object"},
		{"data object", `{"name":"e","channel":"c","data":{"a":1}}`, 400, "data"},
		{"data number", `{"name":"e","channel":"c","data":1}`, 400, "data"},
		{"data missing", `{"name":"e","channel":"c"}`, 400, "data"},
		{"data null", `{"name":"e","channel":"c","data":null}`, 400, "data"},
		{"name missing", `{"channel":"c","data":"d"}`, 400, "name"},
		{"name number", `{"name":1,"channel":"c","data":"d"}`, 400, "name"},
		{"name too long", `{"name":"` + long + `","channel":"c","data":"d"}`, 400, "name"},
		{"no channel", `{"name":"e","data":"d"}`, 400, "channels"},
		{"empty channels", `{"name":"e","channels":[],"data":"d"}`, 400, "channels"},
		{"both", `{"name":"e","channel":"c","channels":["c"],"data":"d"}`, 400, "channel"},
		{"101 channels", `{"name":"e","channels":` + channelList(101) + `,"data":"d"}`, 400, "channels"},
		{"channels not strings", `{"name":"e","channels":[1],"data":"d"}`, 400, "channels"},
		{"bad channel", `{"name":"e","channel":"a b","data":"d"}`, 400, "channels[0]"},
		{"long channel", `{"name":"e","channel":"` + long + `","data":"d"}`, 400, "channels[0]"},
		{"other hash channel", `{"name":"e","channel":"#secret","data":"d"}`, 400, "channels[0]"},
		{"empty user channel", `{"name":"e","channel":"#server-to-user-","data":"d"}`, 400, "channels[0]"},
		{"long user id", `{"name":"e","channel":"#server-to-user-` + strings.Repeat("u", 129) + `","data":"d"}`, 400, "channels[0]"},
		{"bad socket id", `{"name":"e","channel":"c","data":"d","socket_id":"123"}`, 400, "socket_id"},
		{"socket id letters", `{"name":"e","channel":"c","data":"d","socket_id":"1.a"}`, 400, "socket_id"},
		{"unknown info", `{"name":"e","channel":"c","data":"d","info":"colour"}`, 400, "info"},
		{"cache info", `{"name":"e","channel":"cache-c","data":"d","info":"cache"}`, 400, "info"},
		{"data too large", `{"name":"e","channel":"c","data":"` + strings.Repeat("x", 10241) + `"}`, 413, "data"},
		{"large data, bad channel", `{"name":"e","channel":"a b","data":"` + strings.Repeat("x", 10241) + `"}`, 400, "channels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			rec := f.call("POST", "/apps/3/events", tt.body)
			wantStatus(t, rec, tt.status)
			if !strings.Contains(rec.Body.String(), tt.msg) {
				t.Errorf("message %q does not mention %q", rec.Body.String(), tt.msg)
			}
			if n := len(f.backend.publications()); (n == 1) != (tt.status == 200) {
				t.Errorf("published %d events for status %d", n, tt.status)
			}
		})
	}
}

func TestBatchBodyStatus(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		msg        string
	}{
		{"one", batchOf(1), 200, ""},
		{"ten", batchOf(10), 200, ""},
		{"empty", `{"batch":[]}`, 400, "batch"},
		{"missing", `{}`, 400, "batch"},
		{"eleven", batchOf(11), 400, "batch"},
		{"not a list", `{"batch":{}}`, 400, "batch"},
		{"second invalid", `{"batch":[{"name":"e","channel":"c","data":"d"},{"name":"e","channel":"a b","data":"d"}]}`, 400, "batch[1].channels[0]"},
		{"second data object", `{"batch":[{"name":"e","channel":"c","data":"d"},{"name":"e","channel":"c","data":{}}]}`, 400, "data"},
		{"large data first, bad channel second", `{"batch":[{"name":"e","channel":"c","data":"` + strings.Repeat("x", 10241) + `"},{"name":"e","channel":"a b","data":"d"}]}`, 400, "batch[1].channels[0]"},
		{"channels in batch", `{"batch":[{"name":"e","channels":["c"],"data":"d"}]}`, 400, "batch[0].channels"},
		{"data too large", `{"batch":[{"name":"e","channel":"c","data":"d"},{"name":"e","channel":"c","data":"` + strings.Repeat("x", 10241) + `"}]}`, 413, "batch[1].data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			rec := f.call("POST", "/apps/3/batch_events", tt.body)
			wantStatus(t, rec, tt.status)
			if !strings.Contains(rec.Body.String(), tt.msg) {
				t.Errorf("message %q does not mention %q", rec.Body.String(), tt.msg)
			}
			if n := len(f.backend.publications()); tt.status != 200 && n != 0 {
				t.Errorf("published %d events of a refused batch", n)
			}
		})
	}
}

func TestGateStatus(t *testing.T) {
	valid := `{"name":"e","channel":"c","data":"d"}`
	huge := `{"name":"e","channel":"c","data":"` + strings.Repeat("x", 2<<20) + `"}`
	tests := []struct {
		name   string
		req    func() *http.Request
		status int
	}{
		{"unknown app", func() *http.Request { return signed("POST", "/apps/9/events", valid, testKey, testSecret) }, 404},
		{"unknown app beats size", func() *http.Request { return signed("POST", "/apps/9/events", huge, testKey, testSecret) }, 404},
		{"size beats signature", func() *http.Request { return signed("POST", "/apps/3/events", huge, testKey, "wrong") }, 413},
		{"bad signature", func() *http.Request { return signed("POST", "/apps/3/events", valid, testKey, "wrong") }, 401},
		{"other app's key", func() *http.Request { return signed("POST", "/apps/3/events", valid, "key5", "secret5") }, 401},
		{"signature beats disabled", func() *http.Request { return signed("POST", "/apps/4/events", valid, "key4", "wrong") }, 401},
		{"disabled", func() *http.Request { return signed("POST", "/apps/4/events", valid, "key4", "secret4") }, 403},
		{"disabled beats body", func() *http.Request { return signed("POST", "/apps/4/events", `{`, "key4", "secret4") }, 403},
		{"tampered body", func() *http.Request {
			r := signed("POST", "/apps/3/events", valid, testKey, testSecret)
			r.Body, r.ContentLength = bodyReader(`{"name":"x","channel":"c","data":"d"}`)
			return r
		}, 401},
		{"unsigned", func() *http.Request { return httpRequest("POST", "/apps/3/events", valid) }, 401},
		{"wrong method", func() *http.Request { return signed("GET", "/apps/3/events", "", testKey, testSecret) }, 405},
		{"unknown path", func() *http.Request { return signed("GET", "/apps/3/nothing", "", testKey, testSecret) }, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			rec := f.do(tt.req())
			if rec.Code != tt.status {
				t.Fatalf("status = %d, want %d; body %q", rec.Code, tt.status, rec.Body.String())
			}
			if tt.status != 200 && strings.HasPrefix(rec.Body.String(), "{") {
				t.Errorf("error body looks like JSON: %q", rec.Body.String())
			}
		})
	}
}

func TestStaleTimestamp(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Now = func() time.Time { return testNow().Add(601 * time.Second) } })
	wantStatus(t, f.call("POST", "/apps/3/events", `{"name":"e","channel":"c","data":"d"}`), http.StatusUnauthorized)
}

func TestWrongMethodAllow(t *testing.T) {
	f := newFixture(t, nil)
	tests := []struct{ method, path, allow string }{
		{"GET", "/apps/3/events", "POST"},
		{"PUT", "/apps/3/batch_events", "POST"},
		{"POST", "/apps/3/channels", "GET, HEAD"},
		{"DELETE", "/apps/3/channels/c", "GET, HEAD"},
		{"POST", "/apps/3/channels/presence-c/users", "GET, HEAD"},
		{"GET", "/apps/3/users/u/terminate_connections", "POST"},
	}
	for _, tt := range tests {
		rec := f.do(signed(tt.method, tt.path, "", testKey, testSecret))
		if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != tt.allow {
			t.Errorf("%s %s: status %d Allow %q, want 405 Allow %q", tt.method, tt.path, rec.Code, rec.Header().Get("Allow"), tt.allow)
		}
	}
}
