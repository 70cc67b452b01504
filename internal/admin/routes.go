package admin

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/roostproject/roost/internal/apps"
	"github.com/roostproject/roost/internal/config"
)

// Paging of GET /admin/apps.
const (
	defaultLimit = 100
	maxLimit     = 1000
	maxBody      = 64 << 10
)

// list answers GET /admin/apps?after=ID&limit=N with {"apps": [...],
// "next": ID}; next is there when more may follow.
func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	limit := defaultLimit
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLimit {
			http.Error(w, fmt.Sprintf("limit must be 1 to %d", maxLimit), http.StatusBadRequest)
			return
		}
		limit = n
	}
	list, err := h.apps.List(r.Context(), r.URL.Query().Get("after"), limit)
	if err != nil {
		h.fail(w, err)
		return
	}
	out := struct {
		Apps []config.App `json:"apps"`
		Next string       `json:"next,omitempty"`
	}{Apps: make([]config.App, 0, len(list))}
	for _, a := range list {
		out.Apps = append(out.Apps, withoutSecret(a))
	}
	if len(list) == limit {
		out.Next = list[len(list)-1].ID
	}
	writeJSON(w, http.StatusOK, out)
}

// get answers GET /admin/apps/{id}.
func (h *handler) get(w http.ResponseWriter, r *http.Request) {
	a, err := h.apps.ByID(r.Context(), r.PathValue("id"))
	if err == nil && a == nil {
		err = apps.ErrNotFound
	}
	if err != nil {
		h.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, withoutSecret(*a))
}

// create answers POST /admin/apps: 201 with the app, its secret included
// this once. A missing key or secret is generated.
func (h *handler) create(w http.ResponseWriter, r *http.Request) {
	a, err := readApp(w, r)
	if err == nil && a.Key == "" {
		a.Key = random(10)
	}
	if err == nil && a.Secret == "" {
		a.Secret = random(20)
	}
	if err == nil {
		err = h.apps.Create(r.Context(), &a)
	}
	if err != nil {
		h.fail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, a)
}

// update answers PUT /admin/apps/{id}: the body replaces the app, except
// that a missing secret keeps the current one.
func (h *handler) update(w http.ResponseWriter, r *http.Request) {
	a, err := readApp(w, r)
	id := r.PathValue("id")
	if err == nil && a.ID != "" && a.ID != id {
		err = badRequest("the body's id %q is not the path's %q", a.ID, id)
	}
	a.ID = id
	if err == nil && a.Secret == "" {
		var cur *config.App
		if cur, err = h.apps.ByID(r.Context(), id); err == nil && cur == nil {
			err = apps.ErrNotFound
		} else if err == nil {
			a.Secret = cur.Secret
		}
	}
	if err == nil {
		err = h.apps.Update(r.Context(), &a)
	}
	if err != nil {
		h.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, withoutSecret(a))
}

// delete answers DELETE /admin/apps/{id} with 204.
func (h *handler) delete(w http.ResponseWriter, r *http.Request) {
	if err := h.apps.Delete(r.Context(), r.PathValue("id")); err != nil {
		h.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// readApp decodes the body: one app, with the configuration file's keys
// and nothing else.
func readApp(w http.ResponseWriter, r *http.Request) (config.App, error) {
	var a config.App
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, badRequest("body: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return a, badRequest("body: want one JSON object")
	}
	if a.SubscriptionCount {
		return a, badRequest("subscription_count: the apps table has no column for it; set it in the configuration file")
	}
	return a, nil
}

// withoutSecret returns a copy of a without its secret.
func withoutSecret(a config.App) config.App {
	a.Secret = ""
	return a
}

// random returns n random bytes in hex.
func random(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// requestError is a 400 with its message.
type requestError struct{ msg string }

func (e *requestError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &requestError{fmt.Sprintf(format, args...)}
}

// fail answers err with its status: 400 for a bad body or an app that
// fails the configuration's checks, 403 read-only, 404, 409, 503.
func (h *handler) fail(w http.ResponseWriter, err error) {
	var re *requestError
	var fe *config.FieldError
	status := http.StatusInternalServerError
	switch {
	case errors.As(err, &re), errors.As(err, &fe):
		status = http.StatusBadRequest
	case errors.Is(err, apps.ErrReadOnly):
		status = http.StatusForbidden
	case errors.Is(err, apps.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, apps.ErrConflict):
		status = http.StatusConflict
	case errors.Is(err, apps.ErrUnavailable):
		status = http.StatusServiceUnavailable
		err = apps.ErrUnavailable // the driver's error may name the host
	}
	if status == http.StatusInternalServerError {
		h.log.Error("admin: request failed", "err", err)
		err = errors.New("internal server error")
	}
	http.Error(w, err.Error(), status)
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
