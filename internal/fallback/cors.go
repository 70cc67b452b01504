package fallback

import "net/http"

// allowOrigin lets the page that sent r read the response: pusher-js's
// requests are cross-origin XMLHttpRequests without credentials (the page
// is the app's, the host roost's). Whether the app admits that Origin at
// all is decided when the session opens (Config.Admit).
func allowOrigin(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" {
		w.Header().Set("Access-Control-Allow-Origin", o)
		w.Header().Add("Vary", "Origin")
	}
}

// preflight answers the CORS preflight a browser sends before each
// request, since pusher-js sets Content-Type: application/json (Fetch
// standard, "CORS-preflight request").
func preflight(w http.ResponseWriter, r *http.Request) {
	allowOrigin(w, r)
	hd := w.Header()
	hd.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
	if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
		hd.Set("Access-Control-Allow-Headers", req)
	} else {
		hd.Set("Access-Control-Allow-Headers", "Content-Type")
	}
	hd.Set("Access-Control-Max-Age", "7200")
	w.WriteHeader(http.StatusNoContent)
}
