package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/roostproject/roost/internal/auth"
)

// publishRequest is the event creator's form.
type publishRequest struct {
	App      string   `json:"app"`
	Channels []string `json:"channels"`
	Event    string   `json:"event"`
	Data     string   `json:"data"`
	SocketID string   `json:"socket_id,omitempty"`
}

// publishResult is what the HTTP API answered.
type publishResult struct {
	Status int    `json:"status"`
	Body   string `json:"body"`
}

// publish answers POST /dashboard/api/publish: it sends the event as a
// POST /apps/{id}/events of the HTTP API, signed here with the app's
// secret and served by the API handler itself, so the same checks and
// limits apply; the answer carries the API's status and body.
func (d *Dashboard) publish(w http.ResponseWriter, r *http.Request) {
	var req publishRequest
	if err := readJSON(w, r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	a, err := d.cfg.Apps.ByID(r.Context(), req.App)
	if err != nil || a == nil {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no app with id %q", req.App))
		return
	}
	body, _ := json.Marshal(struct {
		Name     string   `json:"name"`
		Channels []string `json:"channels"`
		Data     string   `json:"data"`
		SocketID string   `json:"socket_id,omitempty"`
	}{req.Event, req.Channels, req.Data, req.SocketID})
	path := "/apps/" + url.PathEscape(a.ID) + "/events"
	q := auth.SignRequest(http.MethodPost, path, url.Values{}, body, a.Key, a.Secret, d.cfg.Now())
	apiReq := httptest.NewRequestWithContext(r.Context(), http.MethodPost, path+"?"+q.Encode(), bytes.NewReader(body))
	apiReq.Header.Set("Content-Type", "application/json")
	apiReq.RemoteAddr = r.RemoteAddr
	rec := httptest.NewRecorder()
	d.cfg.API.ServeHTTP(rec, apiReq)
	res := rec.Result()
	b, _ := io.ReadAll(res.Body)
	writeJSON(w, http.StatusOK, publishResult{Status: res.StatusCode, Body: string(b)})
}
