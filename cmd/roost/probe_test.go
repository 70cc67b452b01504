package main

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestProbe checks the exit codes the container health check relies on.
func TestProbe(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	mux := http.NewServeMux()
	mux.HandleFunc("/up", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("/ready", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "degraded: redis unreachable", http.StatusServiceUnavailable)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	tests := []struct {
		name   string
		args   []string
		code   int
		output string // expected in stdout+stderr
	}{
		{"2xx", []string{srv.URL + "/up"}, 0, "200 OK"},
		{"5xx quotes the reason", []string{srv.URL + "/ready"}, 1, "503 Service Unavailable degraded: redis unreachable"},
		{"404", []string{srv.URL + "/nowhere"}, 1, "404"},
		{"timeout", []string{"--timeout", "100ms", srv.URL + "/slow"}, 1, "Timeout"},
		{"refused", []string{"http://" + closedAddr(t) + "/up"}, 1, "refused"},
		{"not a URL", []string{"127.0.0.1:6001/up"}, 2, "not an http:// or https:// URL"},
		{"no URL", nil, 2, "usage: roost probe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			code := run(append([]string{"probe"}, tt.args...), &out, &out)
			if code != tt.code || !strings.Contains(out.String(), tt.output) {
				t.Fatalf("roost probe %v: exit %d, output %q; want exit %d and %q", tt.args, code, out.String(), tt.code, tt.output)
			}
		})
	}
}

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
