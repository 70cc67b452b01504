package api

import (
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/config"
)

// Body buffer sizes: a pooled buffer starts at initialBodyCap and goes back
// to the pool only while it is at most maxPooledBodyCap, so one large request
// does not pin its buffer for ever.
const (
	initialBodyCap   = 4 << 10
	maxPooledBodyCap = 64 << 10
)

// request is what the gate hands an endpoint: a verified, enabled app, the
// parsed query and the raw body. body is a pooled buffer, valid only until
// the endpoint returns.
type request struct {
	app   *config.App
	query url.Values
	body  []byte
}

// endpoint serves one verified request; a returned error becomes the response.
type endpoint func(w http.ResponseWriter, r *http.Request, req *request) error

// gate wraps ep in the checks every API request passes, in a fixed order:
// 404 unknown app, 413 body too large, 401/400 authentication, 403 disabled
// app (status codes of the Pusher HTTP API reference). Cheap refusals come
// first, and only an authenticated caller learns that an app is disabled.
func (h *handler) gate(ep endpoint) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := h.bufs.Get().(*[]byte)
		defer h.putBuf(buf)
		req, err := h.admit(w, r, buf)
		if err == nil {
			err = ep(w, r, req)
		}
		if err != nil {
			h.fail(w, r, err)
		}
	})
}

// admit runs the gate's checks and returns the admitted request.
func (h *handler) admit(w http.ResponseWriter, r *http.Request, buf *[]byte) (*request, error) {
	app, err := h.lookup(r)
	if err != nil {
		return nil, errorf(http.StatusServiceUnavailable, "app store unavailable, try again later")
	}
	if app == nil {
		return nil, errorf(http.StatusNotFound, "unknown app")
	}
	body, err := h.readBody(w, r, buf)
	if err != nil {
		return nil, err
	}
	query := r.URL.Query()
	if err := h.verify(r, query, body, app); err != nil {
		return nil, err
	}
	if !app.IsEnabled() {
		return nil, errorf(http.StatusForbidden, "app disabled")
	}
	return &request{app: app, query: query, body: body}, nil
}

// lookup returns the app the path names, or nil.
func (h *handler) lookup(r *http.Request) (*config.App, error) {
	id := r.PathValue("app")
	if h.cfg.Apps == nil || id == "" {
		return nil, nil
	}
	return h.cfg.Apps.ByID(r.Context(), id)
}

// readBody reads the whole body into *buf, refusing one larger than
// MaxBodySize: from Content-Length before reading anything when the client
// sent one, and through http.MaxBytesReader when it did not (chunked).
func (h *handler) readBody(w http.ResponseWriter, r *http.Request, buf *[]byte) ([]byte, error) {
	limit := int64(h.cfg.MaxBodySize)
	if r.ContentLength > limit {
		return nil, errBodyTooLarge(limit)
	}
	body, err := readAll(http.MaxBytesReader(w, r.Body, limit), (*buf)[:0])
	*buf = body
	if err != nil {
		return nil, bodyError(err, limit)
	}
	return body, nil
}

// bodyError explains a failed body read: 413 past the limit, else 400.
func bodyError(err error, limit int64) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return errBodyTooLarge(limit)
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

// verify checks the request signature (Pusher docs, "HTTP API reference",
// "Generating authentication signatures"): the key must be the app's, the
// timestamp recent, body_md5 right and auth_signature the HMAC of the request.
func (h *handler) verify(r *http.Request, query url.Values, body []byte, app *config.App) error {
	if err := auth.CheckKey(query, app.Key); err != nil {
		return authError(err)
	}
	err := auth.VerifyRequest(r.Method, r.URL.Path, query, body, app.Secret, h.cfg.Now())
	if err != nil {
		return authError(err)
	}
	return nil
}

// authError turns an auth failure into a response: the status and message of
// an *auth.RequestError, else 401 with the error's text.
func authError(err error) error {
	var re *auth.RequestError
	if errors.As(err, &re) {
		return errorf(re.Status, "%s", re.Message)
	}
	return errorf(http.StatusUnauthorized, "%v", err)
}
