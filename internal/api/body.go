package api

import (
	"errors"
	"io"
	"net/http"
	"os"
)

// Body buffer sizes: a pooled buffer starts at initialBodyCap and goes back
// to the pool only while it is at most maxPooledBodyCap, so one large request
// does not pin its buffer for ever.
const (
	initialBodyCap   = 4 << 10
	maxPooledBodyCap = 64 << 10
)

// readBody reads the whole body into *buf and sets req.body. It first
// reserves the body's size from the memory budget (503 when it is spent),
// then reads under the deadline ServeHTTP set (408 past it), refusing more
// than MaxBodySize through http.MaxBytesReader (413) when the client sent no
// Content-Length.
func (h *handler) readBody(w http.ResponseWriter, r *http.Request, req *request, buf *[]byte) error {
	if r.ContentLength == 0 {
		return nil
	}
	limit := int64(h.limits().body)
	size := r.ContentLength
	if size < 0 {
		size = limit
	}
	if !h.memory.reserve(size) {
		return errBusy
	}
	req.reserved = size
	if n := int(r.ContentLength); n > cap(*buf) {
		// Room for the announced body at once: growing by doubling would
		// leave up to as much again as garbage. The budget covers it.
		*buf = make([]byte, 0, n+1) // +1: readAll needs room to see EOF
	}
	body, err := readAll(http.MaxBytesReader(w, r.Body, limit), (*buf)[:0])
	*buf = body
	if err != nil {
		return h.bodyError(err, limit)
	}
	req.body, req.bodyDone = body, true
	return nil
}

// errBusy is the 503 for a body that does not fit the memory budget.
var errBusy = &statusError{
	status:     http.StatusServiceUnavailable,
	msg:        "the server is receiving too many request bodies at once; retry shortly",
	retryAfter: true,
}

// bodyError explains a failed body read: 413 past the limit, 408 past the
// deadline, else 400.
func (h *handler) bodyError(err error, limit int64) error {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return errBodyTooLarge(limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return errorf(http.StatusRequestTimeout, "request body not received within %v", h.cfg.BodyTimeout)
	}
	return errorf(http.StatusBadRequest, "reading request body: %v", err)
}

// readAll appends everything rd yields to b, like io.ReadAll but into a
// caller-owned buffer.
func readAll(rd io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// putBuf returns a body buffer to the pool unless it grew too large.
func (h *handler) putBuf(buf *[]byte) {
	if cap(*buf) <= maxPooledBodyCap {
		*buf = (*buf)[:0]
		h.bufs.Put(buf)
	}
}
