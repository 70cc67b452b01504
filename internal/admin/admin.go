package admin

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net/http"

	"github.com/roostproject/roost/internal/config"
)

// Apps is what the admin API needs from the app store; *apps.Source
// satisfies it. Writes return apps.ErrReadOnly, apps.ErrConflict,
// apps.ErrNotFound or apps.ErrUnavailable, or a config error for an
// invalid app.
type Apps interface {
	ByID(ctx context.Context, id string) (*config.App, error)
	List(ctx context.Context, after string, limit int) ([]config.App, error)
	Create(ctx context.Context, a *config.App) error
	Update(ctx context.Context, a *config.App) error
	Delete(ctx context.Context, id string) error
}

// handler serves /admin/apps; read-only after New.
type handler struct {
	token []byte
	apps  Apps
	log   *slog.Logger
	mux   *http.ServeMux
}

// New returns the admin API, guarded by token, which must not be empty.
func New(token string, apps Apps, log *slog.Logger) http.Handler {
	if token == "" {
		panic("admin.New: empty token")
	}
	h := &handler{token: []byte(token), apps: apps, log: log, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /admin/apps", h.list)
	h.mux.HandleFunc("POST /admin/apps", h.create)
	h.mux.HandleFunc("GET /admin/apps/{id}", h.get)
	h.mux.HandleFunc("PUT /admin/apps/{id}", h.update)
	h.mux.HandleFunc("DELETE /admin/apps/{id}", h.delete)
	return h
}

// ServeHTTP checks the bearer token, then routes.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="roost admin"`)
		http.Error(w, "missing or wrong admin token", http.StatusUnauthorized)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// authorized compares the bearer token in constant time.
func (h *handler) authorized(r *http.Request) bool {
	const prefix = "Bearer "
	got := r.Header.Get("Authorization")
	if len(got) < len(prefix) || got[:len(prefix)] != prefix {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(got[len(prefix):]), h.token) == 1
}
