package bench

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// maxHookBody bounds one webhook request the receiver reads (50 events of
// at most 10 KB of data each, and then some).
const maxHookBody = 4 << 20

// receiver is the webhook endpoint of the webhook bench: a backend as the
// Pusher docs ("Webhooks") describe one. It checks each request's
// X-Pusher-Key and X-Pusher-Signature (hex HMAC-SHA256 of the body with the
// app secret) and counts the events of the good ones. While paused it does
// not answer, as a backend that is down behind a proxy that holds the
// connection, so the server's queue grows.
type receiver struct {
	key, secret string
	ln          net.Listener
	srv         *http.Server

	events, requests, bad atomic.Int64
	lat                   latencies

	mu     sync.Mutex
	paused chan struct{} // non-nil while paused; closed by resume
}

// startReceiver listens on a free loopback port.
func startReceiver(key, secret string) (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{key: key, secret: secret, ln: ln}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go r.srv.Serve(ln)
	return r, nil
}

// URL is the address the server's webhook is set to.
func (r *receiver) URL() string { return "http://" + r.ln.Addr().String() + "/hooks" }

// Close stops the receiver, answering anything held.
func (r *receiver) Close() error {
	r.resume()
	return r.srv.Close()
}

// ServeHTTP implements http.Handler.
func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	paused := r.paused
	r.mu.Unlock()
	if paused != nil {
		select {
		case <-paused:
		case <-req.Context().Done():
			return
		}
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxHookBody))
	if err != nil || req.Header.Get("X-Pusher-Key") != r.key || !r.signed(body, req.Header.Get("X-Pusher-Signature")) {
		r.bad.Add(1)
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	var b struct {
		Events []json.RawMessage `json:"events"`
	}
	if json.Unmarshal(body, &b) != nil {
		r.bad.Add(1)
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	r.requests.Add(1)
	r.events.Add(int64(len(b.Events)))
	r.lat.record(b.Events, time.Now())
}

// latencies are the times from a client event's sending (the sent_ns the
// load puts in its data) to its webhook's arrival, in seconds.
type latencies struct {
	mu sync.Mutex
	s  []float64
}

// record adds the latency of each client event of a request that arrived
// at now.
func (l *latencies) record(events []json.RawMessage, now time.Time) {
	var ev struct{ Name, Data string }
	var data struct {
		SentNS int64 `json:"sent_ns"`
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range events {
		data.SentNS = 0
		if json.Unmarshal(e, &ev) == nil && ev.Name == "client_event" &&
			json.Unmarshal([]byte(ev.Data), &data) == nil && data.SentNS > 0 {
			l.s = append(l.s, now.Sub(time.Unix(0, data.SentNS)).Seconds())
		}
	}
}

// take returns the latencies recorded since the last take.
func (l *latencies) take() []float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.s
	l.s = nil
	return s
}

// signed checks sig is the body's signature.
func (r *receiver) signed(body []byte, sig string) bool {
	return hmac.Equal([]byte(r.sign(body)), []byte(sig))
}

// sign returns the hex HMAC-SHA256 of body with the app secret.
func (r *receiver) sign(body []byte) string {
	m := hmac.New(sha256.New, []byte(r.secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// pause makes the receiver hold every request until resume.
func (r *receiver) pause() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.paused == nil {
		r.paused = make(chan struct{})
	}
}

// resume answers the held requests and those that follow.
func (r *receiver) resume() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.paused != nil {
		close(r.paused)
		r.paused = nil
	}
}
