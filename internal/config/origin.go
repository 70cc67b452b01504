package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// AllowsOrigin reports whether a page from origin (an Origin header, RFC
// 6454 section 7: "https://app.example.com") may open a WebSocket to the
// app: true when AllowedOrigins is empty or holds "*", the origin's host, or
// "*.parent" for a host under parent. Hosts compare without case; an origin
// with no host ("null") is allowed only by "*".
func (a *App) AllowsOrigin(origin string) bool {
	if len(a.AllowedOrigins) == 0 {
		return true
	}
	host := ""
	if u, err := url.Parse(origin); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	for _, p := range a.AllowedOrigins {
		if originMatches(strings.ToLower(p), host) {
			return true
		}
	}
	return false
}

// originMatches reports whether host matches one allowed_origins pattern.
func originMatches(pattern, host string) bool {
	switch {
	case pattern == "*":
		return true
	case host == "":
		return false
	case strings.HasPrefix(pattern, "*."):
		return strings.HasSuffix(host, pattern[1:])
	}
	return host == pattern
}

// originPatterns checks allowed_origins: each entry is "*", a host name, or
// "*." and a host name, without scheme, port or path.
func originPatterns(v any) error {
	var errs []error
	for _, p := range v.([]string) {
		host := strings.TrimPrefix(p, "*.")
		if p == "*" {
			continue
		}
		if host == "" || strings.Trim(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") != "" {
			errs = append(errs, fmt.Errorf("%q is not a host, *.host or *: give the host only, without scheme, port or path", p))
		}
	}
	return errors.Join(errs...)
}
