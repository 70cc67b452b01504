package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
)

// The tests in this file attack the HTTP API over real sockets, as a client
// on the internet could: bodies that never finish, requests that cannot be
// authenticated, many requests from one address.

// eventBody is a valid body for POST /apps/app-id/events.
const eventBody = `{"name":"e","channel":"c","data":"d"}`

// rawRequest is an HTTP request written by hand on its own connection, so
// that a test can stop in the middle of it. A goroutine reads the response
// and then the end of the connection, so that a test can wait for either
// without blocking; it ends when the server or the test's cleanup closes the
// connection.
type rawRequest struct {
	conn    net.Conn
	answers chan answer // the response, then the end of the connection
	got     *answer     // the response, once received
}

// answer is a response, or (status 0) the end of the connection.
type answer struct {
	status int
	msg    string
	header http.Header
	err    error
}

// open connects to s from the loopback address from ("127.0.0.2"; "" for
// any) and writes the request line, the headers and the first sent bytes of
// body. The Content-Length is the whole body's; query is the raw query.
func open(t *testing.T, s *testServer, from, method, path, query, body string, sent int) *rawRequest {
	t.Helper()
	d := net.Dialer{Timeout: waitLimit}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	conn, err := d.Dial("tcp", s.addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", from, err)
	}
	t.Cleanup(func() { conn.Close() })
	head := fmt.Sprintf("%s %s?%s HTTP/1.1\r\nHost: roost\r\nContent-Type: application/json\r\n", method, path, query)
	if method == "POST" {
		head += fmt.Sprintf("Content-Length: %d\r\n", len(body))
	}
	if _, err := io.WriteString(conn, head+"\r\n"+body[:sent]); err != nil {
		t.Fatalf("write request: %v", err)
	}
	q := &rawRequest{conn: conn, answers: make(chan answer, 2)}
	go q.read()
	return q
}

// read reads the response, then to the end of the connection.
func (q *rawRequest) read() {
	br := bufio.NewReader(q.conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		q.answers <- answer{err: err}
		return
	}
	b, err := io.ReadAll(res.Body)
	q.answers <- answer{status: res.StatusCode, msg: strings.TrimSpace(string(b)), header: res.Header, err: err}
	_, err = io.Copy(io.Discard, br)
	q.answers <- answer{err: err}
}

// signedQuery signs a request of the development app with body, now.
func signedQuery(method, path, body string) string {
	return auth.SignRequest(method, path, nil, []byte(body), "app-key", "app-secret", time.Now()).Encode()
}

// openSigned opens a signed request of the development app that has sent
// sent bytes of body.
func openSigned(t *testing.T, s *testServer, from, method, path, body string, sent int) *rawRequest {
	t.Helper()
	return open(t, s, from, method, path, signedQuery(method, path, body), body, sent)
}

// response waits for the response; it fails the test if none comes within
// waitLimit.
func (q *rawRequest) response(t *testing.T) (int, string, http.Header) {
	t.Helper()
	if q.got == nil {
		select {
		case a := <-q.answers:
			q.got = &a
		case <-time.After(waitLimit):
			t.Fatalf("no response within %v", waitLimit)
		}
	}
	if q.got.err != nil {
		t.Fatalf("no response: %v", q.got.err)
	}
	return q.got.status, q.got.msg, q.got.header
}

// answered reports, without waiting, whether the response has come.
func (q *rawRequest) answered() bool {
	if q.got != nil {
		return true
	}
	select {
	case a := <-q.answers:
		q.got = &a
		return true
	default:
		return false
	}
}

// closedByServer fails the test unless the server closes the connection
// within waitLimit after its response.
func (q *rawRequest) closedByServer(t *testing.T) {
	t.Helper()
	q.response(t)
	select {
	case a := <-q.answers:
		if a.err != nil {
			t.Fatalf("connection not closed cleanly by the server: %v", a.err)
		}
	case <-time.After(waitLimit):
		t.Fatalf("connection still open %v after the response", waitLimit)
	}
}

// send completes the request with the rest of body.
func (q *rawRequest) send(t *testing.T, rest string) {
	t.Helper()
	if _, err := io.WriteString(q.conn, rest); err != nil {
		t.Fatalf("write body: %v", err)
	}
}

// oneRefused waits until one of qs is answered and fails the test unless it
// is the only one answered and its status is want, with Retry-After. It
// returns the refused request's index and message.
func oneRefused(t *testing.T, qs []*rawRequest, want int) (int, string) {
	t.Helper()
	refused := -1
	testutil.Eventually(t, waitLimit, "one request to be refused", func() bool {
		for i, q := range qs {
			if q.answered() {
				refused = i
				return true
			}
		}
		return false
	})
	status, msg, h := qs[refused].response(t)
	if status != want || h.Get("Retry-After") == "" {
		t.Fatalf("got %d %q (Retry-After %q), want %d with Retry-After", status, msg, h.Get("Retry-After"), want)
	}
	for i, q := range qs {
		if i != refused && q.answered() {
			t.Fatalf("request %d was answered too: %v", i, q.got)
		}
	}
	return refused, msg
}

// TestSlowBodyIsCutAtDeadline: a signed request whose body stops coming is
// answered 408 at the body deadline and its connection closed, where it used
// to be held for ever.
func TestSlowBodyIsCutAtDeadline(t *testing.T) {
	s := startServer(t, "epoll", func(c *config.Config) { c.Limits.APIBodyTimeout = 200 * time.Millisecond })
	q := openSigned(t, s, "", "POST", "/apps/app-id/events", eventBody, 5)
	status, msg, _ := q.response(t)
	if status != http.StatusRequestTimeout || !strings.Contains(msg, "within 200ms") {
		t.Fatalf("got %d %q, want 408 naming the 200ms deadline", status, msg)
	}
	q.closedByServer(t)
}

// TestStalledBodyOnAnyRouteIsBounded: outside the API too, a request whose
// body stops coming is answered and its connection closed within the HTTP
// server's read timeout, rather than held while net/http waits to drain it.
func TestStalledBodyOnAnyRouteIsBounded(t *testing.T) {
	s := startServer(t, "epoll", func(c *config.Config) {
		c.Limits.HandshakeTimeout, c.Limits.APIBodyTimeout = 200*time.Millisecond, 200*time.Millisecond
	})
	for _, path := range []string{"/up", "/nothing-here"} {
		q := open(t, s, "", "POST", path, "", eventBody, 3)
		if status, _, _ := q.response(t); status < 400 {
			t.Fatalf("POST %s: got %d, want a refusal", path, status)
		}
		q.closedByServer(t)
	}
}

// TestUnauthenticatedRequestIsRefusedBeforeItsBody: a request that is not
// signed by the app, names no app, or is stale gets its answer while the
// client has sent only the headers, and its connection is closed.
func TestUnauthenticatedRequestIsRefusedBeforeItsBody(t *testing.T) {
	path := "/apps/app-id/events"
	stale := auth.SignRequest("POST", path, nil, []byte(eventBody), "app-key", "app-secret", time.Now().Add(-time.Hour)).Encode()
	forged := auth.SignRequest("POST", path, nil, []byte(eventBody), "app-key", "guessed", time.Now()).Encode()
	tests := []struct {
		name, path, query string
		status            int
	}{
		{"unsigned", path, "", http.StatusUnauthorized},
		{"forged", path, forged, http.StatusUnauthorized},
		{"stale", path, stale, http.StatusUnauthorized},
		{"unknown app", "/apps/nope/events", signedQuery("POST", "/apps/nope/events", eventBody), http.StatusNotFound},
	}
	s := startServer(t, "epoll", nil) // the default body deadline, 10 s, is far away
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := open(t, s, "", "POST", tt.path, tt.query, eventBody, 0)
			if status, msg, _ := q.response(t); status != tt.status {
				t.Fatalf("got %d %q, want %d", status, msg, tt.status)
			}
			q.closedByServer(t)
		})
	}
}

// TestRequestsPerAddressAreCapped: of N+1 requests of one address in
// progress, one is refused 429 while another address is served, and the
// others are served when their bodies come.
func TestRequestsPerAddressAreCapped(t *testing.T) {
	const n = 3
	s := startServer(t, "epoll", func(c *config.Config) { c.Limits.APIRequestsPerIP = n })
	path := "/apps/app-id/events"
	held := make([]*rawRequest, n+1)
	for i := range held {
		held[i] = openSigned(t, s, "127.0.0.2", "POST", path, eventBody, 1)
	}
	refused, msg := oneRefused(t, held, http.StatusTooManyRequests)
	if !strings.Contains(msg, "127.0.0.2") || !strings.Contains(msg, "api_requests_per_ip") {
		t.Errorf("429 message %q does not name the address and the setting", msg)
	}
	held[refused].closedByServer(t)
	if status, msg, _ := openSigned(t, s, "127.0.0.3", "POST", path, eventBody, len(eventBody)).response(t); status != 200 {
		t.Fatalf("another address: got %d %q, want 200", status, msg)
	}
	for i, q := range held {
		if i != refused {
			q.send(t, eventBody[1:])
			if status, msg, _ := q.response(t); status != 200 {
				t.Fatalf("held request %d, completed: got %d %q", i, status, msg)
			}
		}
	}
	if status, msg, _ := openSigned(t, s, "127.0.0.2", "POST", path, eventBody, len(eventBody)).response(t); status != 200 {
		t.Fatalf("after they finished: got %d %q, want 200", status, msg)
	}
}

// TestBodyMemoryIsBudgeted: of two bodies that do not fit the budget
// together, one is refused 503; a small one still fits, and the budget
// frees when the held body completes.
func TestBodyMemoryIsBudgeted(t *testing.T) {
	s := startServer(t, "epoll", func(c *config.Config) { c.Limits.APIBodyMemory = 6 << 10 })
	path := "/apps/app-id/events"
	big := `{"name":"e","channel":"c","data":"` + strings.Repeat("x", 4<<10) + `"}`
	held := []*rawRequest{openSigned(t, s, "", "POST", path, big, 1), openSigned(t, s, "", "POST", path, big, 1)}
	refused, _ := oneRefused(t, held, http.StatusServiceUnavailable)
	if status, msg, _ := openSigned(t, s, "", "POST", path, eventBody, len(eventBody)).response(t); status != 200 {
		t.Fatalf("a small body that fits: got %d %q", status, msg)
	}
	q := held[1-refused]
	q.send(t, big[1:])
	if status, msg, _ := q.response(t); status != 200 {
		t.Fatalf("the held body, completed: got %d %q", status, msg)
	}
	if status, msg, _ := openSigned(t, s, "", "POST", path, big, len(big)).response(t); status != 200 {
		t.Fatalf("after the budget freed: got %d %q", status, msg)
	}
}

// TestServerAnswersWhileBodiesAreHeld: with many bodies stalled mid-way,
// /up, a WebSocket connection and a publish are still served.
func TestServerAnswersWhileBodiesAreHeld(t *testing.T) {
	const stalled = 200
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) { c.Limits.APIRequestsPerIP = stalled })
		path := "/apps/app-id/events"
		var wg sync.WaitGroup
		for range stalled {
			wg.Go(func() { openSigned(t, s, "127.0.0.4", "POST", path, eventBody, 3) })
		}
		wg.Wait()
		res, err := http.Get("http://" + s.addr + "/up")
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("/up: %v %v", res, err)
		}
		res.Body.Close()
		c := s.connect(t)
		c.Subscribe("c")
		if status, msg, _ := openSigned(t, s, "127.0.0.5", "POST", path, eventBody, len(eventBody)).response(t); status != 200 {
			t.Fatalf("publish: got %d %q", status, msg)
		}
		c.Expect("e")
	})
}

// TestAPIRatesRecover: past max_read_req_per_sec and
// max_backend_events_per_sec the API answers 429, and serves again once
// the budget has refilled.
func TestAPIRatesRecover(t *testing.T) {
	s := startServer(t, "epoll", func(c *config.Config) {
		c.Apps[0].MaxReadReqPerSec, c.Apps[0].MaxBackendEventsPerSec = 2, 2
	})
	get := func() int {
		u := "http://" + s.addr + "/apps/app-id/channels?" + signedQuery("GET", "/apps/app-id/channels", "")
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	publish := func() int {
		status, _, _ := openSigned(t, s, "", "POST", "/apps/app-id/events", eventBody, len(eventBody)).response(t)
		return status
	}
	for name, call := range map[string]func() int{"reads": get, "events": publish} {
		testutil.Eventually(t, waitLimit, name+" to be refused 429", func() bool { return call() == http.StatusTooManyRequests })
		testutil.Eventually(t, waitLimit, name+" to be served again", func() bool { return call() == http.StatusOK })
	}
}

// TestWebSocketOutlivesHTTPTimeouts: an upgraded connection is not bound by
// the HTTP server's read and write timeouts, which it inherits from the
// request it was upgraded from; it runs on a fake clock.
func TestWebSocketOutlivesHTTPTimeouts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := startPipeServer(t, nil)
		c := s.patient(t)
		time.Sleep(2 * s.http.WriteTimeout) // both deadlines pass
		c.Ping()
		c.Subscribe("after")
	})
}

// TestHTTPTimeoutsAreSet: every phase of a plain HTTP request has a bound.
func TestHTTPTimeoutsAreSet(t *testing.T) {
	s := startServer(t, "portable", nil)
	h := s.http
	if h.ReadHeaderTimeout <= 0 || h.ReadTimeout <= s.cfg.Limits.APIBodyTimeout || h.WriteTimeout <= h.ReadTimeout || h.IdleTimeout <= 0 {
		t.Fatalf("timeouts: header %v, read %v, write %v, idle %v", h.ReadHeaderTimeout, h.ReadTimeout, h.WriteTimeout, h.IdleTimeout)
	}
}
