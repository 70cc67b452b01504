package fallback

import (
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/roostproject/roost/internal/connstats"
)

// Loop holds streams' sockets on epoll loops once their response has
// started (package netpoll's Poller.Hold, through the server), so that an
// idle xhr_streaming session owns no goroutine and no buffer, as an idle
// WebSocket owns none.
type Loop interface {
	// Socket returns a duplicate of the socket under r for Hold, or -1
	// when no loop can hold it: TLS a loop cannot carry on, or no
	// descriptor to spare. It is asked only about HTTP/1 requests.
	Socket(r *http.Request) int
	// Hold hands fd, from Socket, to a loop, which writes what f gives
	// whenever the Stream is woken, and tells f when the socket closes; nc
	// is the connection net/http let go, which the loop closes or, over
	// TLS, keeps encrypting with.
	Hold(fd int, nc net.Conn, f Feed) Stream
	// Drop closes fd, from Socket, which is not to be held after all.
	Drop(fd int)
}

// Feed is what a loop asks of a held stream, on the loop's goroutine.
type Feed interface {
	// Take returns the bytes to write now, and whether the socket is to
	// be closed once they are written.
	Take() (out []byte, last bool)
	// Gone tells that the socket is closed.
	Gone()
}

// Stream is a socket a loop holds.
type Stream interface {
	// Wake tells the loop that the feed has something to take.
	Wake()
	// End closes the socket, dropping what is not written yet.
	End()
	// Blocked returns since when written bytes wait for the client to take
	// them; the zero time when none wait.
	Blocked() time.Time
}

// socket returns a duplicate of the socket under a request of transport
// k for the loop to hold, or -1 if net/http is to hold it: polls end at
// once, and without a Loop every stream stays with net/http.
func (h *Handler) socket(r *http.Request, k kind) int {
	if h.cfg.Loop == nil || k != streaming || r.ProtoMajor != 1 {
		return -1
	}
	return h.cfg.Loop.Socket(r)
}

// holdOnLoop starts the response of the stream gen of c, as hold does,
// then takes the connection from net/http and gives its socket fd to the
// loop. The response says "Connection: close", so that net/http's framing
// of what follows is all there is to keep: the chunks of HTTP/1.1 (RFC 9112
// section 7.1), or the bytes as they are until the close for HTTP/1.0.
func (h *Handler) holdOnLoop(w http.ResponseWriter, r *http.Request, rc *http.ResponseController, c *conn, gen uint64, fresh bool, fd int) {
	w.Header().Set("Connection", "close")
	startResponse(w)
	if fresh && !h.write(w, rc, c, openLine) {
		h.cfg.Loop.Drop(fd)
		c.detach(gen)
		return
	}
	nc, _, err := rc.Hijack() // flushes what net/http buffered; what the client sent past the request is dropped
	if err != nil {
		h.cfg.Loop.Drop(fd)
		c.detach(gen)
		return
	}
	f := &feed{c: c, gen: gen, chunked: r.ProtoAtLeast(1, 1)}
	c.setStream(gen, h.cfg.Loop.Hold(fd, nc, f))
}

// feed is the Feed of one held stream: the request gen of c.
type feed struct {
	c       *conn
	gen     uint64
	chunked bool // the response is HTTP/1.1's chunked encoding
}

var _ Feed = (*feed)(nil)

// Take implements Feed: what c has queued, framed as net/http would have
// written it. The stream ends as a held request returns: after the
// session's close line, or when a newer request took the session over.
func (f *feed) Take() ([]byte, bool) {
	c := f.c
	room := 0
	if f.chunked {
		room = chunkRoom
	}
	out, last, mine := c.take(f.gen, room)
	if !mine {
		return f.frame(nil, true), true
	}
	if n := len(out) - room; n > 0 {
		st := &c.h.stats[c.kind]
		st.BytesOut.Add(int64(n))
		st.FramesOut.Add(1)
	}
	if last {
		c.h.remove(c)
	}
	return f.frame(out, last), last
}

// Gone implements Feed: the request no longer holds the session.
func (f *feed) Gone() { f.c.detach(f.gen) }

// chunkRoom is what a chunk's size line takes at most: 16 hex digits and
// CRLF.
const chunkRoom = 18

// frame frames what b holds past its first chunkRoom bytes (when chunked;
// all of it otherwise) as the response's next bytes, in place; end adds
// the last chunk.
func (f *feed) frame(b []byte, end bool) []byte {
	if !f.chunked {
		return b
	}
	var out []byte
	if n := len(b) - chunkRoom; n > 0 {
		var size [chunkRoom]byte
		line := append(strconv.AppendInt(size[:0], int64(n), 16), '\r', '\n')
		out = b[chunkRoom-len(line):]
		copy(out, line)
		out = append(out, '\r', '\n')
	}
	if end {
		out = append(out, "0\r\n\r\n"...)
	}
	return out
}

// setStream records that the loop's s holds the request gen of c. If gen
// no longer holds the session (it ended, or a newer request took over), s
// is woken to find that out and close. What was queued before s is woken.
func (c *conn) setStream(gen uint64, s Stream) {
	c.mu.Lock()
	mine := c.gen == gen
	if mine {
		c.stream = s
	}
	c.mu.Unlock()
	s.Wake()
}

// stuck ends a held stream whose client has not taken what was written
// within the write timeout, as a slow consumer, as net/http's write
// deadline ends a request it holds. It reports whether it did.
func (c *conn) stuck(now time.Time) bool {
	c.mu.Lock()
	s := c.stream
	c.mu.Unlock()
	if s == nil {
		return false
	}
	since := s.Blocked()
	if since.IsZero() || now.Sub(since) <= c.h.cfg.Policy.WriteTimeout {
		return false
	}
	c.setReason(connstats.Slow)
	c.closeWith(slowLine)
	s.End()
	return true
}

// endStream closes the socket a loop holds for c, if there is one.
func (c *conn) endStream() {
	c.mu.Lock()
	s := c.stream
	c.mu.Unlock()
	if s != nil {
		s.End()
	}
}
