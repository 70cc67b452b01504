package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Timing of a console stream.
const (
	// statusEvery is how often a stream reports its skipped count.
	statusEvery = time.Second
	// writeWait bounds each write to a stream; a browser that stops
	// reading is dropped.
	writeWait = 10 * time.Second
)

// stream answers GET /dashboard/api/console?app=ID&channel=NAME as
// Server-Sent Events: an "event" message per console event, and every
// second a "status" message with the count of events skipped so far. It
// ends when the client goes or the dashboard closes.
func (d *Dashboard) stream(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	app, err := d.cfg.Apps.ByID(r.Context(), q.Get("app"))
	if err != nil || app == nil {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no app with id %q", q.Get("app")))
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	wt := d.console.watch(app.ID, q.Get("channel"))
	defer d.console.unwatch(wt)
	tick := time.NewTicker(statusEvery)
	defer tick.Stop()
	if !send(rc, w, "status", status{}) {
		return
	}
	for {
		var ok bool
		select {
		case <-r.Context().Done():
			return
		case <-d.done:
			return
		case e := <-wt.events:
			ok = send(rc, w, "event", e)
		case <-tick.C:
			ok = send(rc, w, "status", status{Skipped: wt.skipped.Load()})
		}
		if !ok {
			return
		}
	}
}

// status is a stream's periodic report.
type status struct {
	Skipped int64 `json:"skipped"`
}

// send writes one Server-Sent Event of type name with v as its JSON data,
// and flushes it.
func send(rc *http.ResponseController, w http.ResponseWriter, name string, v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	rc.SetWriteDeadline(time.Now().Add(writeWait))
	if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b); err != nil {
		return false
	}
	return rc.Flush() == nil
}
