package dashboard

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// cookieName holds a logged-in browser's proof of the token.
const cookieName = "roost_dashboard"

// cookieValue is what the login cookie holds for token: an HMAC of it, so
// the token itself never sits in the browser.
func cookieValue(token string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("roost dashboard session"))
	return hex.EncodeToString(m.Sum(nil))
}

// equal compares two strings in constant time (for equal lengths; the
// hashes compared here always are).
func equal(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

// authorized reports whether r carries the token, as
// "Authorization: Bearer <token>" or as the login cookie. Without a token
// the dashboard is open (checkRequest has kept it to loopback).
func (d *Dashboard) authorized(r *http.Request) bool {
	if d.cfg.Token == "" {
		return true
	}
	if got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return equal(got, d.cfg.Token)
	}
	if c, err := r.Cookie(cookieName); err == nil {
		return equal(c.Value, cookieValue(d.cfg.Token))
	}
	return false
}

// guard lets through only authorized requests; others get 401.
func (d *Dashboard) guard(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !d.authorized(r) {
			writeError(w, http.StatusUnauthorized, "missing or wrong admin token: log in with admin.token")
			return
		}
		h(w, r)
	})
}

// login answers POST /dashboard/api/login {"token": "..."}: 204 with the
// session cookie when the token is right, else 401.
func (d *Dashboard) login(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Token string `json:"token"`
	}
	if err := readJSON(w, r, &body); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if d.cfg.Token == "" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if !equal(body.Token, d.cfg.Token) {
		writeError(w, http.StatusUnauthorized, "wrong admin token")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: cookieValue(d.cfg.Token), Path: "/dashboard",
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	w.WriteHeader(http.StatusNoContent)
}

// logout answers POST /dashboard/api/logout by clearing the cookie.
func (d *Dashboard) logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/dashboard", MaxAge: -1,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	w.WriteHeader(http.StatusNoContent)
}

// checkRequest refuses what a page of another site could send with the
// browser's credentials or through DNS rebinding: without a token, any
// Host but a loopback name; and a POST from another origin or not JSON (a
// cross-origin JSON POST needs a preflight, which is never answered).
func (d *Dashboard) checkRequest(r *http.Request) error {
	if d.cfg.Token == "" && !loopbackHost(r.Host) {
		return errors.New("the dashboard has no admin.token, so it answers only to http://127.0.0.1 or http://localhost")
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	if o := r.Header.Get("Origin"); o != "" {
		if u, err := url.Parse(o); err != nil || u.Host != r.Host {
			return errors.New("cross-origin request refused")
		}
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return errors.New("send a JSON body (Content-Type: application/json)")
	}
	return nil
}

// loopbackHost reports whether a Host header names this machine.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// clientIP is the address of the request's peer, without the port.
func clientIP(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}
