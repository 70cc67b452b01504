package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestParseBanner reads the transport a server serves from its start line
// (the format of cmd/roost's serve), never the "auto" it was asked for.
func TestParseBanner(t *testing.T) {
	tests := []struct {
		line, url, transport string
	}{
		{"roost 0.1.0-dev serving on http://127.0.0.1:46241 (transport epoll+uring)", "http://127.0.0.1:46241", "epoll+uring"},
		{"roost 0.1.0-dev serving on http://127.0.0.1:40000 (transport epoll)", "http://127.0.0.1:40000", "epoll"},
		{"roost v1.2.3 serving on https://[::1]:6001 (transport portable)", "https://[::1]:6001", "portable"},
	}
	for _, tt := range tests {
		b, ok := parseBanner(tt.line)
		if !ok || b.url != tt.url || b.transport != tt.transport {
			t.Errorf("parseBanner(%q) = %+v, %v; want %s and %s", tt.line, b, ok, tt.url, tt.transport)
		}
	}
	for _, line := range []string{
		"dashboard: http://127.0.0.1:46241/dashboard",
		"development app: id=app-id key=app-key secret=app-secret",
		"roost 0.1.0-dev serving on http://127.0.0.1:1 (transport",
		"roost 0.1.0-dev serving on http://127.0.0.1:1",
		"serving on ",
	} {
		if b, ok := parseBanner(line); ok {
			t.Errorf("parseBanner(%q) = %+v; want no start line", line, b)
		}
	}
}

// FuzzParseBanner: whatever stdout holds, a start line that parses names a
// transport without spaces and a URL taken from the line.
func FuzzParseBanner(f *testing.F) {
	f.Add("roost 0.1.0-dev serving on http://127.0.0.1:46241 (transport epoll+uring)")
	f.Add("dashboard: http://127.0.0.1:46241/dashboard")
	f.Add("serving on a (transport b) c")
	f.Fuzz(func(t *testing.T, line string) {
		b, ok := parseBanner(line)
		if !ok {
			return
		}
		if b.transport == "" || strings.ContainsAny(b.transport, " \t)") || !strings.Contains(line, b.url) {
			t.Fatalf("parseBanner(%q) = %+v", line, b)
		}
	})
}

// TestSampleNamesTheServedTransport: the metrics label says "epoll" for
// epoll+uring as well, so a sample records the transport the start line
// named when it is known, and the busiest label only when it is not.
func TestSampleNamesTheServedTransport(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(exposition))
	}))
	t.Cleanup(ts.Close)
	for _, tt := range []struct{ served, want string }{{"epoll+uring", "epoll+uring"}, {"", "epoll"}} {
		s, err := NewProbe(Target{URL: ts.URL, Transport: tt.served}).Sample(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if s.Transport != tt.want {
			t.Errorf("served %q: sample says transport %q, want %q", tt.served, s.Transport, tt.want)
		}
	}
}
