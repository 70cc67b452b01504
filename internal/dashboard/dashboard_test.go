package dashboard

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// endpoints are every API endpoint, with a request each may be sent.
var endpoints = []struct{ method, path, body string }{
	{"GET", "/dashboard/api/session", ""},
	{"GET", "/dashboard/api/overview", ""},
	{"GET", "/dashboard/api/apps", ""},
	{"GET", "/dashboard/api/channels?app=shop", ""},
	{"GET", "/dashboard/api/channel?app=shop&name=presence-room", ""},
	{"GET", "/dashboard/api/channel?app=shop&name=private-encrypted-cache-x", ""},
	{"GET", "/dashboard/api/console?app=shop", ""},
	{"POST", "/dashboard/api/publish", `{"app":"shop","channels":["a"],"event":"e","data":"{}"}`},
}

func TestEveryEndpointNeedsTheToken(t *testing.T) {
	f := newFixture(t, token, false)
	for _, auth := range []string{"", "Bearer wrong-token-0123456789", "Basic " + token,
		cookieName + "=" + token, cookieName + "=" + cookieValue("wrong-token-0123456789")} {
		for _, e := range endpoints {
			status, body := f.request(t, e.method, e.path, auth, e.body)
			if status != http.StatusUnauthorized || !strings.Contains(body, "admin token") {
				t.Errorf("%s %s with %q: %d %s, want 401", e.method, e.path, auth, status, body)
			}
		}
	}
	if f.hub.Console() != nil {
		t.Error("a refused console request attached the console")
	}
}

func TestNoSecretInAnyResponse(t *testing.T) {
	f := newFixture(t, token, false)
	events := f.stream(t, "app=shop")
	f.hub.Publish("shop", hub.Publication{Channels: []string{"private-encrypted-cache-x"}, Event: "e", Data: `{"ciphertext":"c2VjcmV0"}`})
	if e := next(t, events); e.Channel != "private-encrypted-cache-x" || e.Data != "" || !e.Hidden || e.Size == 0 {
		t.Errorf("console event of an encrypted channel: %+v, want its size only", e)
	}
	for _, auth := range []string{"Bearer " + token, cookieName + "=" + cookieValue(token)} {
		for _, e := range endpoints {
			if e.path == "/dashboard/api/console?app=shop" {
				continue // streamed above
			}
			status, body := f.request(t, e.method, e.path, auth, e.body)
			if status != http.StatusOK {
				t.Errorf("%s %s: %d %s", e.method, e.path, status, body)
			}
			for _, s := range []string{secret, hookSecret, "c2VjcmV0", token} {
				if strings.Contains(body, s) {
					t.Errorf("%s %s shows %q: %s", e.method, e.path, s, body)
				}
			}
		}
	}
	_, body := f.request(t, "GET", "/dashboard/api/apps", "Bearer "+token, "")
	if !strings.Contains(body, `"url":"https://hooks.example/pusher"`) || !strings.Contains(body, `"connections":0`) {
		t.Errorf("apps: %s, want the webhook without its credentials and the connection count", body)
	}
}

func TestLoginSetsACookieThatIsNotTheToken(t *testing.T) {
	f := newFixture(t, token, false)
	status, _ := f.request(t, "POST", "/dashboard/api/login", "", `{"token":"wrong-token-0123456789"}`)
	if status != http.StatusUnauthorized {
		t.Errorf("login with a wrong token: %d, want 401", status)
	}
	req, _ := http.NewRequest("POST", f.srv.URL+"/dashboard/api/login", strings.NewReader(`{"token":"`+token+`"}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	cookies := res.Cookies()
	if res.StatusCode != http.StatusNoContent || len(cookies) != 1 || !cookies[0].HttpOnly ||
		cookies[0].SameSite != http.SameSiteStrictMode || strings.Contains(cookies[0].Value, token) {
		t.Fatalf("login: %d %+v, want 204 and an HttpOnly, SameSite=Strict cookie without the token", res.StatusCode, cookies)
	}
	status, body := f.request(t, "GET", "/dashboard/api/session", cookieName+"="+cookies[0].Value, "")
	if status != http.StatusOK || !strings.Contains(body, `"login":true`) {
		t.Errorf("session with the cookie: %d %s", status, body)
	}
}

func TestWithoutATokenOnlyLoopbackHostsAreServed(t *testing.T) {
	f := newFixture(t, "", true)
	status, body := f.request(t, "GET", "/dashboard/api/session", "", "")
	if status != http.StatusOK {
		t.Errorf("open dashboard on 127.0.0.1: %d %s", status, body)
	}
	req, _ := http.NewRequest("GET", f.srv.URL+"/dashboard/api/session", nil)
	req.Host = "rebound.example:6001"
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("open dashboard asked for Host %s: %d, want 403", req.Host, res.StatusCode)
	}
}

func TestCrossOriginAndNonJSONPostsAreRefused(t *testing.T) {
	f := newFixture(t, token, false)
	for _, h := range []map[string]string{
		{"Content-Type": "text/plain"},
		{"Content-Type": "application/json", "Origin": "https://evil.example"},
	} {
		req, _ := http.NewRequest("POST", f.srv.URL+"/dashboard/api/publish", strings.NewReader(endpoints[7].body))
		req.Header.Set("Authorization", "Bearer "+token)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		res, err := f.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("POST with %v: %d, want 403", h, res.StatusCode)
		}
	}
}

func TestRequestsPastTheRateGet429(t *testing.T) {
	f := newFixture(t, token, false)
	limited := false
	for range 3 * f.d.cfg.Settings.RequestsPerSecond {
		if status, _ := f.request(t, "GET", "/dashboard/api/session", "", ""); status == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Errorf("%d requests at once were all served, want 429 past a burst of %d",
			3*f.d.cfg.Settings.RequestsPerSecond, 2*f.d.cfg.Settings.RequestsPerSecond)
	}
}

func TestPublishGoesThroughTheHTTPAPI(t *testing.T) {
	f := newFixture(t, token, false)
	events := f.stream(t, "app=shop&channel=orders*")
	status, body := f.request(t, "POST", "/dashboard/api/publish", "Bearer "+token,
		`{"app":"shop","channels":["orders-1"],"event":"paid","data":"{\"n\":1}"}`)
	if status != http.StatusOK || !strings.Contains(body, `"status":200`) {
		t.Errorf("publish: %d %s", status, body)
	}
	if e := next(t, events); e.Type != typeAPIEvent || e.Channel != "orders-1" || e.Event != "paid" || e.Data != `{"n":1}` {
		t.Errorf("console shows %+v, want the API event", e)
	}
	// The API's own limit (MaxEventData 100 in the fixture) applies.
	big := strings.Repeat("x", 200)
	_, body = f.request(t, "POST", "/dashboard/api/publish", "Bearer "+token,
		`{"app":"shop","channels":["orders-1"],"event":"paid","data":"`+big+`"}`)
	if !strings.Contains(body, `"status":413`) {
		t.Errorf("publish of data over the API's limit: %s, want the API's 413", body)
	}
}

func TestTheConsoleIsAttachedOnlyWhileWatched(t *testing.T) {
	f := newFixture(t, token, false)
	if f.hub.Console() != nil {
		t.Fatal("a console is attached before anyone watches")
	}
	events := f.stream(t, "app=shop")
	if f.hub.Console() == nil {
		t.Fatal("no console attached while a stream is open")
	}
	f.hub.Publish("shop", hub.Publication{Channels: []string{"a"}, Event: "client-typing", Data: "{}", SocketID: "7.1"})
	if e := next(t, events); e.Type != typeClientEvent || e.SocketID != "7.1" {
		t.Errorf("console shows %+v, want the client event", e)
	}
	f.srv.CloseClientConnections()
	testutil.Eventually(t, 10*time.Second, "the console detached", func() bool { return f.hub.Console() == nil })
}

func TestCloseReasonsWithAFixedCodeShowIt(t *testing.T) {
	f := newFixture(t, token, false)
	events := f.stream(t, "app=shop")
	for reason, code := range map[string]int{"timeout": 4201, "slow_consumer": 4100, "client": 0, "server": 0} {
		f.d.console.Disconnected("shop", "7.1", reason)
		if e := next(t, events); e.Type != typeDisconnected || e.Reason != reason || e.Code != code {
			t.Errorf("console shows %+v, want reason %s and code %d", e, reason, code)
		}
	}
}

func TestChannelShowsMembersAndTheCachedEvent(t *testing.T) {
	f := newFixture(t, token, false)
	events := f.stream(t, "app=shop&channel=presence-*")
	room := f.hub.Acquire("shop", "presence-room")
	f.hub.Join(room, 0, hub.Member{ID: "ada", Info: `{"name":"Ada"}`}, 100, "", func(error) {})
	if e := next(t, events); e.Type != typeMemberAdded || e.User != "ada" {
		t.Errorf("console shows %+v, want ada added", e)
	}
	_, body := f.request(t, "GET", "/dashboard/api/channel?app=shop&name=presence-room", "Bearer "+token, "")
	if !strings.Contains(body, `"members":[{"id":"ada","info":"{\"name\":\"Ada\"}"}]`) {
		t.Errorf("presence channel: %s, want its member", body)
	}
	_, body = f.request(t, "GET", "/dashboard/api/channels?app=shop&prefix=presence-", "Bearer "+token, "")
	if !strings.Contains(body, `"name":"presence-room","subscription_count":1`) {
		t.Errorf("channels: %s, want presence-room", body)
	}
	for name, want := range map[string]string{
		"cache-news":                `"data":"{\"n\":1}"`,
		"private-encrypted-cache-x": `"hidden":true`,
	} {
		f.hub.Acquire("shop", name)
		f.hub.Publish("shop", hub.Publication{Channels: []string{name}, Event: "e", Data: `{"n":1}`})
		_, body = f.request(t, "GET", "/dashboard/api/channel?app=shop&name="+name, "Bearer "+token, "")
		if !strings.Contains(body, want) || !strings.Contains(body, `"size":7`) {
			t.Errorf("%s: %s, want %s and the size", name, body, want)
		}
	}
}

// TestAConsoleAddsNoAllocationToAPublish: the event a console is handed
// travels by value, so a watched publish allocates what an unwatched one
// does.
func TestAConsoleAddsNoAllocationToAPublish(t *testing.T) {
	h := hub.New(hub.Config{Shards: 1, Encode: func(m *hub.Message) []byte { return []byte(m.Data) }}, 1)
	h.SetShard(0, inline{h})
	h.Attach(h.Acquire("app", "news"), 0, &nopSub{seq: 1})
	p := hub.Publication{Channels: []string{"news"}, Event: "update", Data: `{"n":1}`}
	unwatched := testing.AllocsPerRun(100, func() { h.Publish("app", p) })
	c := newConsole(h, 1<<30, time.Now)
	w := c.watch("app", "")
	defer c.unwatch(w)
	missed := 0
	watched := testing.AllocsPerRun(100, func() {
		h.Publish("app", p)
		select { // the hub reports before Publish returns
		case <-w.events:
		default:
			missed++
		}
	})
	if missed > 0 {
		t.Fatalf("the console missed %d publishes", missed)
	}
	if watched != unwatched {
		t.Errorf("a watched publish allocates %v times, an unwatched one %v", watched, unwatched)
	}
}
