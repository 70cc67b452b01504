package dashboard

import (
	"embed"
	"net/http"
)

// static holds the page: HTML, CSS and JavaScript, no build step.
//
//go:embed static
var static embed.FS

// contentSecurity keeps the page to its own files: no inline script, no
// other origin, no frames.
const contentSecurity = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// page serves the dashboard's page; its script asks for a login when the
// API answers 401.
func (d *Dashboard) page(w http.ResponseWriter, r *http.Request) {
	b, err := static.ReadFile("static/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", contentSecurity)
	w.Write(b)
}
