package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
)

// statusError is a request failure with the HTTP status and the plain-text
// message the client receives. The Pusher HTTP API reference answers errors
// with a status and an explanation in the body.
type statusError struct {
	status     int
	msg        string
	retryAfter bool // a refusal for now, not for this request: say when to retry
}

// Error returns the message sent to the client.
func (e *statusError) Error() string { return e.msg }

// errorf returns a *statusError with a formatted message.
func errorf(status int, format string, args ...any) error {
	return &statusError{status: status, msg: fmt.Sprintf(format, args...)}
}

// unavailable is the 503 for a query the shared state did not answer.
func unavailable(err error) error {
	return errorf(http.StatusServiceUnavailable, "%v", err)
}

// errBodyTooLarge is the 413 for a request body over the limit.
func errBodyTooLarge(limit int64) error {
	return errorf(http.StatusRequestEntityTooLarge, "request body larger than %d bytes", limit)
}

// fail writes err as the response: a *statusError as itself, anything else as
// 500 without details (those go to the log).
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	var se *statusError
	if !errors.As(err, &se) {
		h.cfg.Logger.Error("api: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		http.Error(w, "internal server error", http.StatusInternalServerError)
		return
	}
	if h.cfg.Logger.Enabled(context.Background(), slog.LevelDebug) {
		h.cfg.Logger.Debug("api: request refused", "method", r.Method, "path", r.URL.Path,
			"status", se.status, "reason", se.msg)
	}
	if se.retryAfter {
		w.Header().Set("Retry-After", "1")
	}
	http.Error(w, se.msg, se.status)
}

// within prefixes the message of a *statusError with the place it concerns,
// such as "batch[3]."; other errors pass unchanged.
func within(err error, prefix string) error {
	var se *statusError
	if !errors.As(err, &se) {
		return err
	}
	return &statusError{status: se.status, msg: prefix + se.msg, retryAfter: se.retryAfter}
}
