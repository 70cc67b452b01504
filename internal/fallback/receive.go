package fallback

import (
	"errors"
	"net/http"
	"os"
	"time"

	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/pusher"
)

// serveReceive answers the requests that receive, of transport k: a stream
// or a poll. The first request of a session opens it; its response starts
// with "o".
func (h *Handler) serveReceive(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := sessionKey(r)
		if key == "" {
			http.Error(w, "roost: not a pusher-js session path: /pusher/app/{key}/{0-999}/{8 base-32 digits}/"+names[k], http.StatusNotFound)
			return
		}
		allowOrigin(w, r)
		c, fresh := h.lookup(key), false
		if c == nil {
			if h.forward(w, r, key) {
				return
			}
			if c, fresh = h.open(w, r, key, k); c == nil {
				return
			}
		}
		if c.kind != k {
			http.Error(w, "roost: this session uses "+names[c.kind], http.StatusNotFound)
			return
		}
		h.hold(w, r, c, fresh)
	}
}

// open admits and starts a session under key; nil when the request was
// refused (and answered). fresh is false when a concurrent request opened
// the same session first.
func (h *Handler) open(w http.ResponseWriter, r *http.Request, key string, k kind) (c *conn, fresh bool) {
	a := h.cfg.Admit(w, r, r.PathValue("key"), names[k])
	if a.App == nil {
		if a.Code != 0 {
			refuse(w, a.Code, a.Reason)
		}
		return nil, false
	}
	now := h.now()
	c = &conn{h: h, key: key, kind: k, release: a.Release, wake: make(chan struct{}, 1), seen: now, loose: now}
	got, ok := h.insert(c)
	switch {
	case !ok:
		a.Release()
		refuse(w, pusher.ReconnectNow, "server is shutting down")
		return nil, false
	case got != c:
		a.Release()
		return got, false
	}
	h.stats[k].Opened()
	h.held(key)
	h.cfg.Do(func() { c.call().Init(a.App) })
	return c, true
}

// refuse opens a session only to refuse it in Pusher's terms, as a
// WebSocket is refused after its upgrade: pusher:error, then the close
// with the code, which tells pusher-js whether to give up, back off or
// reconnect.
func refuse(w http.ResponseWriter, code pusher.Code, reason string) {
	startResponse(w)
	b := append([]byte(nil), openLine...)
	b = appendMessages(b, []item{{msg: pusher.AppendError(nil, code, reason)}})
	w.Write(append(b, closeLine(int(code), reason)...))
}

// startResponse writes the headers of a receiving response: the framing is
// text that must reach the client as it is written, never cached or held
// by a proxy (X-Accel-Buffering is nginx's switch).
func startResponse(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("Content-Type", "application/javascript; charset=UTF-8")
	hd.Set("Cache-Control", "no-store, no-cache, must-revalidate, max-age=0")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
}

// hold serves one receiving request of c until it has answered (a poll),
// the session ends, a newer request takes over or the client goes.
func (h *Handler) hold(w http.ResponseWriter, r *http.Request, c *conn, fresh bool) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{}) // no body follows; the server's read timeout would end the request
	rc.SetWriteDeadline(time.Time{})
	gen, wake := c.attach(h.gens.Add(1))
	if fd := h.socket(r, c.kind); fd >= 0 {
		h.holdOnLoop(w, r, rc, c, gen, fresh, fd)
		return
	}
	defer c.detach(gen)
	startResponse(w)
	if fresh && (!h.write(w, rc, c, openLine) || c.kind == polling) {
		return // a poll that opens answers only "o"; pusher-js polls again at once
	}
	var timeout <-chan time.Time
	if c.kind == polling {
		t := time.NewTimer(h.cfg.PollWait)
		defer t.Stop()
		timeout = t.C
	}
	for {
		out, last, mine := c.take(gen, 0)
		switch {
		case !mine:
			return
		case len(out) > 0:
			ok := h.write(w, rc, c, out)
			if last {
				h.remove(c)
			}
			if !ok || last || c.kind == polling {
				return
			}
			continue
		}
		select {
		case <-wake:
		case <-r.Context().Done():
			return
		case <-timeout:
			h.write(w, rc, c, heartbeatLine)
			return
		}
	}
}

// write writes b and flushes it within the write timeout. A write that
// times out ends the session as a slow consumer; any other failure is the
// client gone, which the sweeper notices if no request follows.
func (h *Handler) write(w http.ResponseWriter, rc *http.ResponseController, c *conn, b []byte) bool {
	rc.SetWriteDeadline(h.now().Add(h.cfg.Policy.WriteTimeout))
	n, err := w.Write(b)
	if err == nil {
		err = rc.Flush()
	}
	st := &h.stats[c.kind]
	st.BytesOut.Add(int64(n))
	st.FramesOut.Add(1)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		c.setReason(connstats.Slow)
		c.closeWith(slowLine)
	}
	return err == nil
}

// attach makes the request gen the one that takes c's items, and returns
// the channel that tells it some are queued. The request it replaces is
// woken and leaves, or, held by a loop, closed. A request counts as
// activity.
func (c *conn) attach(gen uint64) (uint64, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	close(c.wake)
	if c.stream != nil {
		c.stream.Wake()
		c.stream = nil
	}
	c.wake = make(chan struct{}, 1)
	if len(c.queue) > 0 {
		c.wake <- struct{}{}
	}
	c.gen = gen
	c.touchLocked()
	return gen, c.wake
}

// detach records that the request gen has ended, if it still held c.
func (c *conn) detach(gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		c.gen = 0
		c.stream = nil
		c.loose = c.h.now()
	}
}

// touchLocked records a request from the client; c.mu is held.
func (c *conn) touchLocked() {
	c.seen = c.h.now()
	c.pinged = false
}
