package config

import (
	"net/url"
	"strings"
	"testing"
)

func TestAllowsOrigin(t *testing.T) {
	app := App{AllowedOrigins: []string{"example.com", "*.Example.org"}}
	for origin, want := range map[string]bool{
		"https://example.com":         true,
		"http://EXAMPLE.com:8080":     true,
		"https://www.example.com":     false, // exact host only
		"https://app.example.org":     true,
		"https://a.b.example.org":     true,
		"https://example.org":         false, // *. means subdomains, not the domain
		"https://evil-example.org":    false,
		"https://example.org.evil.io": false,
		"null":                        false,
		"":                            false,
	} {
		if got := app.AllowsOrigin(origin); got != want {
			t.Errorf("AllowsOrigin(%q) = %v, want %v", origin, got, want)
		}
	}
	any := App{AllowedOrigins: []string{"*"}}
	none := App{}
	if !any.AllowsOrigin("null") || !none.AllowsOrigin("https://x.test") {
		t.Error(`"*" and an empty list must allow every origin`)
	}
}

func TestOriginPatterns(t *testing.T) {
	if err := originPatterns([]string{"*", "example.com", "*.example.com", "localhost"}); err != nil {
		t.Errorf("valid patterns refused: %v", err)
	}
	for _, bad := range []string{"https://example.com", "example.com:443", "example.com/", "*.", "", "a.*.com"} {
		if originPatterns([]string{bad}) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzAllowsOrigin feeds Origin headers and patterns: nothing panics, "*"
// allows everything, a pattern that passes its check and equals the
// origin's host allows it, and no pattern allows an origin without a host.
func FuzzAllowsOrigin(f *testing.F) {
	for _, seed := range [][2]string{
		{"https://example.com", "example.com"}, {"http://app.example.org:8080", "*.example.org"},
		{"null", "*"}, {"https://[::1]:443", "localhost"}, {"file://", "example.com"}, {"https://EXAMPLE.com", "Example.COM"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, origin, pattern string) {
		app := App{AllowedOrigins: []string{pattern}}
		allowed := app.AllowsOrigin(origin)
		if pattern == "*" && !allowed {
			t.Fatalf("* refused %q", origin)
		}
		u, err := url.Parse(origin)
		if err != nil || u.Hostname() == "" {
			if allowed && pattern != "*" {
				t.Fatalf("%q without a host allowed by %q", origin, pattern)
			}
			return
		}
		if originPatterns([]string{pattern}) == nil && strings.EqualFold(pattern, u.Hostname()) && !allowed {
			t.Fatalf("%q refused by its own host %q", origin, pattern)
		}
	})
}
