package bench

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// An xhr_streaming client as pusher-js 8.x is one (src/core/http/): a held
// POST .../xhr_streaming whose response is lines ("o", a[...], "h",
// c[...]), and a POST .../xhr_send for each message it sends. The worker
// holds the stream on a socket of its own, and sends through one
// keep-alive HTTP client for all its sessions.

// xhrSession is one streaming session of a worker.
type xhrSession struct {
	w      *worker
	base   string // .../pusher/app/{key}/{server}/{session}/
	query  string
	nc     net.Conn
	lines  *bufio.Reader
	sender *http.Client
}

// runStream is runConn for an xhr_streaming session.
func (w *worker) runStream() {
	defer w.live.Add(-1)
	idx := w.seq.Add(1)
	s, activity, err := w.openStream(idx)
	<-w.sem
	if err != nil {
		w.fail(err)
		return
	}
	defer s.nc.Close()
	stop := context.AfterFunc(w.ctx, func() { s.nc.Close() })
	defer stop()
	if err := s.prepare(idx); err != nil {
		w.fail(err)
		return
	}
	w.ready.Add(1)
	defer w.ready.Add(-1)
	err = s.hold(cmpOr(w.cfg.ping, activity))
	if w.ctx.Err() == nil {
		w.dropped.Add(1)
		w.setErr(err)
	}
}

// xhrBase turns the worker's ws:// URL of an app into the base and query
// of session idx's fallback URLs.
func xhrBase(wsURL string, id int, idx int64) (base, query string, err error) {
	u, err := url.Parse(wsURL)
	if err != nil {
		return "", "", err
	}
	u.Scheme = strings.Replace(u.Scheme, "ws", "http", 1)
	session := fmt.Sprintf("%08s", strconv.FormatInt(int64(id)<<32|idx, 32))
	session = session[len(session)-8:]
	base = u.Scheme + "://" + u.Host + "/pusher" + u.Path + "/" + strconv.FormatInt(idx%1000, 10) + "/" + session + "/"
	return base, u.RawQuery, nil
}

// openStream opens session idx's stream and reads "o" and
// pusher:connection_established, returning the activity timeout.
func (w *worker) openStream(idx int64) (*xhrSession, time.Duration, error) {
	base, query, err := xhrBase(w.cfg.url, w.cfg.id, idx)
	if err != nil {
		return nil, 0, err
	}
	s := &xhrSession{w: w, base: base, query: query, sender: w.sender()}
	if err := s.dial(); err != nil {
		return nil, 0, err
	}
	s.nc.SetReadDeadline(time.Now().Add(handshakeTimeout))
	if l, err := s.line(); err != nil || l != "o" {
		s.nc.Close()
		return nil, 0, fmt.Errorf("xhr_streaming opened with %q: %v", l, err)
	}
	msgs, err := s.messages()
	if err == nil && len(msgs) == 0 {
		err = errors.New("no connection_established")
	}
	var activity time.Duration
	if err == nil {
		activity, err = established(msgs[0])
	}
	if err != nil {
		s.nc.Close()
		return nil, 0, err
	}
	w.activity.Store(int64(activity / time.Second))
	return s, activity, nil
}

// dial sends the stream's request on a socket of its own and reads the
// response head.
func (s *xhrSession) dial() error {
	u, _ := url.Parse(s.base)
	ctx, cancel := context.WithTimeout(s.w.ctx, handshakeTimeout)
	defer cancel()
	nc, err := s.w.dialer().DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return err
	}
	if u.Scheme == "https" {
		tc := tls.Client(nc, s.w.tlsConfig(u.Hostname()))
		if err := tc.HandshakeContext(ctx); err != nil {
			nc.Close()
			return err
		}
		nc = tc
	}
	req := "POST " + u.Path + "xhr_streaming?" + s.query + " HTTP/1.1\r\nHost: " + u.Host +
		"\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n"
	nc.SetDeadline(time.Now().Add(handshakeTimeout))
	br := bufio.NewReaderSize(nc, 512)
	if _, err := io.WriteString(nc, req); err != nil {
		nc.Close()
		return err
	}
	resp, err := http.ReadResponse(br, nil)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("xhr_streaming answered %s", resp.Status)
	}
	if err != nil {
		nc.Close()
		return err
	}
	nc.SetWriteDeadline(time.Time{})
	s.nc, s.lines = nc, bufio.NewReader(resp.Body)
	return nil
}

// line reads the stream's next line.
func (s *xhrSession) line() (string, error) {
	l, err := s.lines.ReadString('\n')
	return strings.TrimSuffix(l, "\n"), err
}

// messages reads lines until an a[...] line and returns its messages; a
// c[...] line is the server's close.
func (s *xhrSession) messages() ([][]byte, error) {
	for {
		l, err := s.line()
		if err != nil {
			return nil, err
		}
		switch {
		case strings.HasPrefix(l, "a"):
			var msgs []string
			if err := json.Unmarshal([]byte(l[1:]), &msgs); err != nil {
				return nil, fmt.Errorf("bad line %.100q: %w", l, err)
			}
			out := make([][]byte, len(msgs))
			for i, m := range msgs {
				out[i] = []byte(m)
			}
			return out, nil
		case strings.HasPrefix(l, "c"):
			return nil, fmt.Errorf("server closed the session: %s", l)
		case l == "h":
			s.send(nil) // pusher-js answers every heartbeat
		}
	}
}

// send posts msgs with xhr_send; nil is the heartbeat "[]".
func (s *xhrSession) send(msgs [][]byte) error {
	strs := make([]string, len(msgs))
	for i, m := range msgs {
		strs[i] = string(m)
	}
	body, _ := json.Marshal(strs)
	resp, err := s.sender.Post(s.base+"xhr_send", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("xhr_send answered %s", resp.Status)
	}
	return nil
}

// prepare subscribes the session and exchanges one heartbeat, as
// worker.prepare does for a WebSocket.
func (s *xhrSession) prepare(idx int64) error {
	var msgs [][]byte
	for j := range s.w.cfg.channels {
		msgs = append(msgs, subscribeMsg(s.w.channel(idx, j)))
	}
	if err := s.send(msgs); err != nil {
		return err
	}
	for ok := 0; ok < len(msgs); {
		got, err := s.messages()
		if err != nil {
			return err
		}
		for _, m := range got {
			if eventName(m) == "pusher_internal:subscription_succeeded" {
				ok++
			}
		}
	}
	s.w.pings.Add(1)
	if err := s.send(nil); err != nil {
		return err
	}
	for {
		if l, err := s.line(); err != nil || l == "h" {
			return err
		}
	}
}

// hold reads the stream until the worker stops, answering the server's
// "h" and pinging with "[]" after interval of silence, as pusher-js does.
// The reads carry no deadline (a timed-out read would leave the response's
// chunked reader failed for good): a ticker of its own sends the pings.
func (s *xhrSession) hold(interval time.Duration) error {
	var heard atomic.Int64
	heard.Store(time.Now().UnixNano())
	t := time.NewTicker(interval / 4)
	defer t.Stop()
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				if now.UnixNano()-heard.Load() >= int64(interval) {
					heard.Store(now.UnixNano())
					s.w.pings.Add(1)
					s.send(nil)
				}
			}
		}
	}()
	s.nc.SetReadDeadline(time.Time{})
	for {
		l, err := s.line()
		if err != nil {
			return err
		}
		heard.Store(time.Now().UnixNano())
		switch {
		case l == "h":
			s.w.serverPings.Add(1)
			s.send(nil)
		case strings.HasPrefix(l, "c"):
			return fmt.Errorf("server closed the session: %s", l)
		}
	}
}

// dialer dials from the worker's source address.
func (w *worker) dialer() *net.Dialer {
	d := &net.Dialer{}
	if w.cfg.source != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(w.cfg.source)}
	}
	return d
}

// tlsConfig is the worker's TLS configuration for server host.
func (w *worker) tlsConfig(host string) *tls.Config {
	c := &tls.Config{}
	if w.cfg.tls != nil {
		c = w.cfg.tls.Clone()
	}
	c.ServerName = host
	return c
}

// sender returns the worker's one HTTP client for xhr_send, made on first
// use: keep-alive connections from the worker's source address.
func (w *worker) sender() *http.Client {
	w.senderOnce.Do(func() {
		w.httpc = &http.Client{Timeout: handshakeTimeout, Transport: &http.Transport{
			DialContext: w.dialer().DialContext, TLSClientConfig: w.cfg.tls,
			MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second,
		}}
	})
	return w.httpc
}
