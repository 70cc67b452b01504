package api

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/config"
)

// request is what the gate hands an endpoint: a verified, enabled app, the
// parsed query and the raw body. body is a pooled buffer, valid only until
// the endpoint returns.
type request struct {
	app   *config.App
	query url.Values
	body  []byte

	bodyDone bool  // the body was read to its end
	reserved int64 // bytes of the body budget this request holds
}

// endpoint serves one verified request; a returned error becomes the response.
type endpoint func(w http.ResponseWriter, r *http.Request, req *request) error

// gate wraps ep in the checks every API request passes, in a fixed order:
// 404 unknown app, 413 body too large, 401/400 authentication, 403 disabled
// app (status codes of the Pusher HTTP API reference), then 503 when too many
// bodies are being received, 408 when the body is too slow, and 401 when it
// is not the body that was signed. Everything before the body is decided
// from the request line and headers, so a client that cannot sign a request
// never gets the server to wait for, or hold, a body. Only an authenticated
// caller learns that an app is disabled.
func (h *handler) gate(ep endpoint) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := h.bufs.Get().(*[]byte)
		defer h.putBuf(buf)
		req := &request{}
		defer func() { h.memory.release(req.reserved) }()
		err := h.admit(w, r, req, buf)
		if err == nil {
			err = ep(w, r, req)
		}
		if err == nil {
			return
		}
		if req.bodyDone {
			h.fail(w, r, err)
			return
		}
		h.refuse(w, r, err)
	})
}

// admit runs the gate's checks and fills req.
func (h *handler) admit(w http.ResponseWriter, r *http.Request, req *request, buf *[]byte) error {
	req.bodyDone = r.ContentLength == 0
	app, err := h.lookup(r)
	if err != nil {
		return errorf(http.StatusServiceUnavailable, "app store unavailable, try again later")
	}
	if app == nil {
		return errorf(http.StatusNotFound, "unknown app")
	}
	req.app = app
	if limit := int64(h.cfg.MaxBodySize); r.ContentLength > limit {
		return errBodyTooLarge(limit)
	}
	req.query = r.URL.Query()
	if err := h.verify(r, req.query, req.app); err != nil {
		return err
	}
	if !req.app.IsEnabled() {
		return errorf(http.StatusForbidden, "app disabled")
	}
	if err := h.readBody(w, r, req, buf); err != nil {
		return err
	}
	if err := auth.CheckBodyMD5(req.query, req.body); err != nil {
		return authError(err)
	}
	return nil
}

// lookup returns the app the path names, or nil.
func (h *handler) lookup(r *http.Request) (*config.App, error) {
	id := r.PathValue("app")
	if h.cfg.Apps == nil || id == "" {
		return nil, nil
	}
	return h.cfg.Apps.ByID(r.Context(), id)
}

// verify checks the request signature (Pusher docs, "HTTP API reference",
// "Generating authentication signatures") from the query alone: the key must
// be the app's, the timestamp recent, auth_signature the HMAC of the request,
// and body_md5 present when a body follows. The body's MD5 is checked once
// the body has been read.
func (h *handler) verify(r *http.Request, query url.Values, app *config.App) error {
	if err := auth.CheckKey(query, app.Key); err != nil {
		return authError(err)
	}
	err := auth.VerifyQuery(r.Method, r.URL.Path, query, r.ContentLength != 0, app.Secret, h.cfg.Now())
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
