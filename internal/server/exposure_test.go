package server

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
)

// TestDevelopmentAppStaysOnLoopback: the public development secret is
// never served on an address other hosts can reach, and the error says
// how to define an app.
func TestDevelopmentAppStaysOnLoopback(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:6001"} {
		cfg, err := config.Parse([]byte("addr: \""+addr+"\"\n"), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = New(cfg, quiet)
		if err == nil || !strings.Contains(err.Error(), "ROOST_APP_SECRET") {
			t.Errorf("addr %s with the development app: err = %v, want a refusal naming ROOST_APP_SECRET", addr, err)
		}
	}
	for _, env := range [][]string{
		{"ROOST_ADDR=127.0.0.1:0"}, {"ROOST_ADDR=localhost:0"}, {"ROOST_ADDR=[::1]:0"},
		{"ROOST_ADDR=0.0.0.0:0", "ROOST_APP_ID=a", "ROOST_APP_KEY=k", "ROOST_APP_SECRET=private"},
	} {
		cfg, err := config.Parse(nil, env)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := New(cfg, quiet)
		if err != nil {
			t.Errorf("%v: %v", env, err)
			continue
		}
		srv.Shutdown(t.Context())
	}
}

func TestSplitHTTPError(t *testing.T) {
	for line, want := range map[string][2]string{
		"http: Accept error: accept tcp 127.0.0.1:6001: accept4: too many open files; retrying in 5ms": {
			"http: Accept error", "accept tcp 127.0.0.1:6001: accept4: too many open files; retrying in 5ms"},
		"http: TLS handshake error from 192.0.2.1:5555: EOF": {"http: TLS handshake error", "from 192.0.2.1:5555: EOF"},
		"odd": {"http: odd", ""},
	} {
		if k, d := splitHTTPError(line); k != want[0] || d != want[1] {
			t.Errorf("splitHTTPError(%q) = %q, %q; want %q, %q", line, k, d, want[0], want[1])
		}
	}
}

// TestMetricsOnTheirOwnAddress: with metrics.addr set, /metrics and the
// debug endpoints leave the main address.
func TestMetricsOnTheirOwnAddress(t *testing.T) {
	t.Setenv(DebugEnv, "endpoints")
	s := startServer(t, "epoll", func(c *config.Config) { c.Metrics.Addr = "127.0.0.1:0" })
	if code, _ := s.get(t, "GET", "/metrics"); code != http.StatusNotFound {
		t.Errorf("GET /metrics on the main address: %d, want 404", code)
	}
	if code, _ := s.get(t, "POST", "/debug/gc"); code != http.StatusNotFound {
		t.Errorf("POST /debug/gc on the main address: %d, want 404", code)
	}
	m := &testServer{Server: s.Server, addr: s.MetricsAddr()}
	if code, body := m.get(t, "GET", "/metrics"); code != http.StatusOK || !strings.Contains(body, "roost_connections") {
		t.Errorf("GET /metrics on metrics.addr: %d", code)
	}
	if code, _ := m.get(t, "POST", "/debug/gc"); code != http.StatusOK {
		t.Errorf("POST /debug/gc on metrics.addr: %d", code)
	}
}

// TestMetricsToken: with metrics.token set, /metrics and the debug
// endpoints answer 401 without the bearer token or with another.
func TestMetricsToken(t *testing.T) {
	t.Setenv(DebugEnv, "endpoints")
	s := startServer(t, "portable", func(c *config.Config) { c.Metrics.Token = "s3cret" })
	for _, path := range []string{"/metrics", "/debug/pprof/"} {
		for auth, want := range map[string]int{"": 401, "Bearer nope": 401, "s3cret": 401, "Bearer s3cret": 200} {
			req, _ := http.NewRequest("GET", "http://"+s.addr+path, nil)
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("GET %s with Authorization %q: %d, want %d", path, auth, resp.StatusCode, want)
			}
		}
	}
	if code, _ := s.get(t, "GET", "/up"); code != http.StatusOK {
		t.Errorf("/up must not need the token: %d", code)
	}
}
