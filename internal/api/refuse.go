package api

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"time"
)

// A request refused before its body was read ends its connection: the
// server has no use for the body and will not wait for it. But closing a
// socket with input still unread makes the kernel answer with a reset, and
// a client still uploading can lose the response to it, which RFC 9112
// (section 9.6, "Tear-down") tells a server to avoid by reading on until
// the client has seen its response. So the refusal goes out whole, with
// its length and Connection: close, the write side is shut, and what the
// client still sends is read and discarded, at most lingerBytes for at
// most lingerTime, before the socket is closed.
const (
	lingerBytes = 16 << 20
	lingerTime  = time.Second
)

// refuse answers err to a request whose body has not been read.
func (h *handler) refuse(w http.ResponseWriter, r *http.Request, err error) {
	if r.ContentLength == 0 {
		h.fail(w, r, err)
		return
	}
	a := &answer{ResponseWriter: w}
	h.fail(a, r, err)
	w.Header().Set("Connection", "close")
	w.Header().Set("Content-Length", strconv.Itoa(a.body.Len()))
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body.Bytes())
	lingerClose(w)
}

// answer keeps a response's status and body so that refuse can send them
// with their length; headers go to the ResponseWriter itself.
type answer struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (a *answer) WriteHeader(status int) { a.status = status }

func (a *answer) Write(p []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	return a.body.Write(p)
}

// lingerClose sends what w holds, shuts the connection's write side and
// discards what the client still sends, within the linger bounds. Without
// a connection to take over (HTTP/2, test recorders) the body's read
// deadline is set to now, so that net/http reads no more of it.
func lingerClose(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.Flush() // the body too: Hijack sends only the head of what was written
	conn, rw, err := rc.Hijack()
	if err != nil {
		_ = rc.SetReadDeadline(time.Now())
		return
	}
	defer conn.Close()
	if rw.Flush() != nil {
		return
	}
	if cw, ok := conn.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_ = conn.SetReadDeadline(time.Now().Add(lingerTime))
	_, _ = io.CopyN(io.Discard, rw, lingerBytes)
}
