package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
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
	apiReq, err := http.NewRequestWithContext(r.Context(), http.MethodPost, path+"?"+q.Encode(), bytes.NewReader(body))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	apiReq.Header.Set("Content-Type", "application/json")
	apiReq.RemoteAddr = r.RemoteAddr
	rec := &answer{header: make(http.Header)}
	d.cfg.API.ServeHTTP(rec, apiReq)
	writeJSON(w, http.StatusOK, publishResult{Status: rec.status(), Body: rec.body.String()})
}

// answer keeps what the HTTP API handler answered, for the event creator.
type answer struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (a *answer) Header() http.Header { return a.header }

func (a *answer) WriteHeader(code int) {
	if a.code == 0 {
		a.code = code
	}
}

func (a *answer) Write(b []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	if a.body.Len() >= maxBody {
		return len(b), nil // the page needs the start of an answer, not all of it
	}
	return a.body.Write(b)
}

// status is the answer's status code; 200 when the handler set none.
func (a *answer) status() int {
	if a.code == 0 {
		return http.StatusOK
	}
	return a.code
}
