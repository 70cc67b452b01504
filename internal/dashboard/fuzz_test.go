package dashboard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzRequestBodies sends any body to the endpoints that decode one (the
// login and the event creator): each answers a 2xx or 4xx, never a 5xx,
// and never shows the app's secret or the token.
func FuzzRequestBodies(f *testing.F) {
	for _, seed := range []string{
		`{"token":"` + token + `"}`,
		`{"token":"wrong"}`,
		`{"app":"shop","channels":["orders-1"],"event":"paid","data":"{\"n\":1}"}`,
		`{"app":"shop","channels":["private-encrypted-x"],"event":"e","data":"{}","socket_id":"1.2"}`,
		`{"app":"shop","channels":[],"event":"","data":""}`,
		`{"app":"nope","channels":["a"],"event":"e","data":"x"}`,
		`{"app":"shop","channels":["a"],"event":"e","data":"x","extra":1}`,
		`{"app":"shop"`, `[]`, ``,
	} {
		f.Add(seed)
	}
	fx := newFixture(f, token, false)
	fx.d.limit.perSecond = 1 << 30 // the rate limit is not what is fuzzed
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range []string{"/dashboard/api/login", "/dashboard/api/publish"} {
			req := httptest.NewRequest("POST", path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+token)
			w := httptest.NewRecorder()
			fx.d.ServeHTTP(w, req)
			if w.Code >= http.StatusInternalServerError {
				t.Errorf("POST %s %q: %d %s", path, body, w.Code, w.Body)
			}
			if out := w.Body.String(); strings.Contains(out, secret) || strings.Contains(out, token) {
				t.Errorf("POST %s %q shows a secret: %s", path, body, out)
			}
		}
	})
}
