package server

import (
	"fmt"
	"net"
	"strings"

	"github.com/roostproject/roost/internal/config"
)

// checkExposure refuses to serve an app whose secret is the development
// app's public one on an address other hosts can reach: anyone could sign
// channel auth and API requests for it.
func checkExposure(cfg *config.Config) error {
	if isLoopback(cfg.Addr) {
		return nil
	}
	for i := range cfg.Apps {
		if a := &cfg.Apps[i]; a.HasPublicSecret() {
			return fmt.Errorf("server: addr %q is reachable from other hosts, but app %q has the development app's public secret; "+
				"define your own app with ROOST_APP_ID, ROOST_APP_KEY and ROOST_APP_SECRET, or under apps: in a --config file "+
				"(roost serve --print-config shows one), or listen on 127.0.0.1", cfg.Addr, a.ID)
		}
	}
	return nil
}

// isLoopback reports whether a listen address accepts connections from this
// machine only: a loopback IP or localhost. An empty host is every interface.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// httpErrors is net/http's error log (http.Server.ErrorLog): each line is
// logged by its kind ("http: Accept error"), at most once a second, with
// the rest of the line as detail, so that a process out of descriptors
// writes one accept error a second with a count instead of thousands.
type httpErrors struct {
	log interface{ Warn(string, ...any) }
}

func (h httpErrors) Write(p []byte) (int, error) {
	kind, detail := splitHTTPError(strings.TrimSpace(string(p)))
	h.log.Warn(kind, "detail", detail)
	return len(p), nil
}

// splitHTTPError splits a net/http error line into its kind, without
// addresses, and the rest: "http: TLS handshake error from 1.2.3.4:5: EOF"
// gives "http: TLS handshake error" and "from 1.2.3.4:5: EOF".
func splitHTTPError(line string) (kind, detail string) {
	rest := strings.TrimPrefix(line, "http: ")
	kind, detail, _ = strings.Cut(rest, ": ")
	if k, from, ok := strings.Cut(kind, " from "); ok {
		kind, detail = k, "from "+from+": "+detail
	}
	return "http: " + kind, detail
}
