package config

import "testing"

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
