package admission

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/pusher"
)

// testApps holds apps in memory (cached) and in a store that only ByKey
// reaches; it counts the store's lookups.
type testApps struct {
	cached, stored map[string]*config.App
	storeErr       error
	lookups        int
}

func (a *testApps) CachedByKey(key string) (*config.App, bool) {
	if app, ok := a.cached[key]; ok || a.stored[key] == nil && a.storeErr == nil {
		return app, true
	}
	return nil, false
}

func (a *testApps) ByKey(_ context.Context, key string) (*config.App, error) {
	if app, ok := a.cached[key]; ok {
		return app, nil
	}
	a.lookups++
	return a.stored[key], a.storeErr
}

var off = false

// newTestDoor returns a Door over apps "k" (allowing example.com only,
// with a quota of 2 of which conns are held), "off" (disabled) and "db"
// (in the store), within caps.
func newTestDoor(caps Caps, conns *int) (*Door, *testApps) {
	apps := &testApps{
		cached: map[string]*config.App{
			"k":   {ID: "id", Key: "k", AllowedOrigins: []string{"example.com"}, MaxConnections: 2},
			"off": {ID: "off", Key: "off", Enabled: &off, AllowedOrigins: []string{"example.com"}},
		},
		stored: map[string]*config.App{"db": {ID: "db", Key: "db"}},
	}
	return New(Config{Caps: caps, Apps: apps, AppConnections: func(string) int { return *conns }}), apps
}

// req is a request from pusher-js for key on tr.
func req(tr Transport, key string) Request {
	return Request{Transport: tr, AppKey: key, Query: "protocol=7&client=js&version=8.6.0", Client: a}
}

// TestAdmitRules: each of the app's rules refuses with its answer, an HTTP
// status before the upgrade or a Pusher code after it, and holds no place.
func TestAdmitRules(t *testing.T) {
	conns := 0
	d, _ := newTestDoor(Caps{}, &conns)
	for name, c := range map[string]struct {
		edit   func(*Request)
		kind   Kind
		status int
		code   pusher.Code
	}{
		"admitted":       {func(*Request) {}, Admit, 0, 0},
		"allowed origin": {func(r *Request) { r.Origin = "https://example.com" }, Admit, 0, 0},
		"origin":         {func(r *Request) { r.Origin = "https://evil.test" }, RefuseHTTP, 403, 0},
		"unknown key":    {func(r *Request) { r.AppKey = "nope" }, RefusePusher, 0, pusher.AppNotFound},
		"disabled":       {func(r *Request) { r.AppKey = "off" }, RefusePusher, 0, pusher.AppDisabled},
		"protocol":       {func(r *Request) { r.Query = "protocol=8" }, RefusePusher, 0, pusher.UnsupportedProtocol},
		"version":        {func(r *Request) { r.Query = "version=x" }, RefusePusher, 0, pusher.InvalidVersion},
		"no protocol":    {func(r *Request) { r.Query = "" }, RefusePusher, 0, pusher.NoProtocol},
		"store":          {func(r *Request) { r.AppKey = "db" }, Admit, 0, 0},
	} {
		r := req(Epoll, "k")
		c.edit(&r)
		dec := d.Admit(context.Background(), r)
		if dec.Kind != c.kind || dec.Status != c.status || dec.Code != c.code {
			t.Errorf("%s: %+v, want kind %d status %d code %d", name, dec, c.kind, c.status, c.code)
		}
		if dec.Kind == Admit {
			d.Release(dec.Ticket)
		}
	}
	if n := d.gate.opened(); n != 0 {
		t.Fatalf("%d places held after every session was released or refused", n)
	}
	if got := d.Refused(Epoll); got[Origin] != 1 || got[App] != 5 {
		t.Fatalf("refused %v, want 1 origin and 5 app", got)
	}
}

// TestAdmitQuota: the app's quota is read from AppConnections.
func TestAdmitQuota(t *testing.T) {
	conns := 1
	d, _ := newTestDoor(Caps{}, &conns)
	if dec := d.Admit(context.Background(), req(Portable, "k")); dec.Kind != Admit {
		t.Fatalf("under the quota: %+v", dec)
	}
	conns = 2
	if dec := d.Admit(context.Background(), req(Portable, "k")); dec.Code != pusher.OverQuota {
		t.Fatalf("at the quota: %+v, want 4004", dec)
	}
}

// TestAdmitPrecedence: a refusal by the caps wins over one for the Origin,
// which wins over one in Pusher's terms.
func TestAdmitPrecedence(t *testing.T) {
	conns := 0
	d, _ := newTestDoor(Caps{MaxConnections: 1}, &conns)
	held := d.Admit(context.Background(), req(Epoll, "k"))
	for _, key := range []string{"k", "nope", "off"} {
		r := req(Epoll, key)
		r.Origin = "https://evil.test"
		if dec := d.Admit(context.Background(), r); dec.Status != http.StatusServiceUnavailable || dec.Reason != Connections {
			t.Errorf("%s at the cap: %+v, want 503 connections", key, dec)
		}
	}
	d.Release(held.Ticket)
	r := req(Epoll, "off")
	r.Origin = "https://evil.test"
	if dec := d.Admit(context.Background(), r); dec.Status != http.StatusForbidden {
		t.Errorf("a disabled app's bad Origin: %+v, want 403", dec)
	}
}

// TestAdmitStoreAfterCaps: an app only the store knows is looked up after
// the caps, so a node at its cap asks the store nothing; a store that does
// not answer is a 4100, pusher-js's cue to back off.
func TestAdmitStoreAfterCaps(t *testing.T) {
	conns := 0
	d, apps := newTestDoor(Caps{MaxConnections: 1}, &conns)
	held := d.Admit(context.Background(), req(Epoll, "k"))
	if dec := d.Admit(context.Background(), req(Epoll, "db")); dec.Reason != Connections || apps.lookups != 0 {
		t.Fatalf("at the cap: %+v after %d lookups, want 503 and none", dec, apps.lookups)
	}
	d.Release(held.Ticket)
	apps.storeErr = errors.New("down")
	if dec := d.Admit(context.Background(), req(Epoll, "db")); dec.Code != pusher.OverCapacity || d.gate.opened() != 0 {
		t.Fatalf("store down: %+v, %d open; want 4100 and no place held", dec, d.gate.opened())
	}
}

// TestInlineDefers: an inline request that needs the store or a refusal in
// Pusher's terms is deferred with nothing claimed, counted or spent; one
// refused over HTTP is refused inline.
func TestInlineDefers(t *testing.T) {
	conns := 0
	d, apps := newTestDoor(Caps{PerSecond: 1}, &conns)
	for _, key := range []string{"db", "nope", "off"} {
		r := req(Epoll, key)
		r.Inline = true
		if dec := d.Admit(context.Background(), r); dec.Kind != Defer {
			t.Errorf("inline %s: %+v, want Defer", key, dec)
		}
	}
	if apps.lookups != 0 || d.Refused(Epoll) != [NumReasons]int64{} {
		t.Fatalf("deferring looked up %d apps and counted %v", apps.lookups, d.Refused(Epoll))
	}
	r := req(Epoll, "k")
	r.Inline = true
	if dec := d.Admit(context.Background(), r); dec.Kind != Admit { // the one token was not spent
		t.Fatalf("inline after the deferred ones: %+v, want Admit", dec)
	}
	if dec := d.Admit(context.Background(), r); dec.Kind != RefuseHTTP || dec.Reason != Rate {
		t.Fatalf("inline over the rate: %+v, want 503 rate", dec)
	}
}

// TestRefusalsByTransport: each transport's refusals are its own.
func TestRefusalsByTransport(t *testing.T) {
	conns := 0
	d, _ := newTestDoor(Caps{}, &conns)
	d.Admit(context.Background(), req(XHRStreaming, "nope"))
	d.Refuse(XHRPolling, Invalid)
	d.Refuse(Epoll, Descriptors)
	if d.Refused(XHRStreaming)[App] != 1 || d.Refused(XHRPolling)[Invalid] != 1 || d.Refused(Epoll)[Descriptors] != 1 || d.Refused(Portable) != [NumReasons]int64{} {
		t.Fatalf("refusals: streaming %v, polling %v, epoll %v, portable %v", d.Refused(XHRStreaming),
			d.Refused(XHRPolling), d.Refused(Epoll), d.Refused(Portable))
	}
	seen := map[string]bool{}
	for tr := Transport(0); tr < NumTransports; tr++ {
		if s := tr.String(); s == "" || seen[s] {
			t.Errorf("transport %d: label %q empty or repeated", tr, s)
		}
		seen[tr.String()] = true
	}
}

// TestWriteHTTP: a refusal over HTTP is answered with its status, a
// Retry-After on a 503, and Connection: close.
func TestWriteHTTP(t *testing.T) {
	for r, want := range map[Reason]struct {
		status int
		retry  string
	}{Rate: {503, "1"}, Connections: {503, "5"}, Descriptors: {503, "5"}, Origin: {403, ""}} {
		w := httptest.NewRecorder()
		dec := refusal(r)
		dec.WriteHTTP(w)
		if w.Code != want.status || w.Header().Get("Retry-After") != want.retry || w.Header().Get("Connection") != "close" {
			t.Errorf("%s: %d, Retry-After %q, Connection %q; want %d, %q, close", r, w.Code,
				w.Header().Get("Retry-After"), w.Header().Get("Connection"), want.status, want.retry)
		}
	}
}

// TestAdmitAllocations: admitting a session allocates nothing, so the
// epoll loops' handshake stays at its one copy of the head. (An Origin
// checked against allowed_origins costs config.App.AllowsOrigin's
// url.Parse on top.)
func TestAdmitAllocations(t *testing.T) {
	conns := 0
	d, _ := newTestDoor(Caps{MaxConnections: 10, MaxPerIP: 10, PerSecond: 1 << 30, PerSecondPerIP: 1 << 30}, &conns)
	r := req(Epoll, "k")
	r.Inline = true
	n := testing.AllocsPerRun(100, func() {
		dec := d.Admit(context.Background(), r)
		if dec.Kind != Admit {
			t.Fatalf("refused: %+v", dec)
		}
		d.Release(dec.Ticket)
	})
	if n != 0 {
		t.Fatalf("%v allocations per admission, want 0", n)
	}
}
