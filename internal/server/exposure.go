package server

import (
	"fmt"
	"net"

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
