package server

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
)

// TestNATSReady: a node given nats.url joins its cluster through NATS, and
// GET /ready follows NATS: 200 while it answers, 503 naming it while it is
// down, 200 again when it is back.
func TestNATSReady(t *testing.T) {
	n := testutil.StartNATS(t)
	s := startServer(t, "portable", func(c *config.Config) { c.NATS.URL = n.URL(); c.NATS.Prefix = "server-test" })
	ready := func(status int, body string) func() bool {
		return func() bool {
			res, err := http.Get("http://" + s.addr + "/ready")
			if err != nil {
				return false
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			return res.StatusCode == status && strings.Contains(string(b), body)
		}
	}
	testutil.Eventually(t, waitLimit, "/ready 200 on NATS", ready(http.StatusOK, "ready"))
	n.Kill()
	testutil.Eventually(t, waitLimit, "/ready 503 naming NATS", ready(http.StatusServiceUnavailable, "degraded: nats unreachable"))
	n.Start()
	testutil.Eventually(t, waitLimit, "/ready 200 again", ready(http.StatusOK, "ready"))
}
