package server

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
)

// reloadLimits applies the running configuration with edit made to it, as
// SIGHUP would, and fails the test if it is refused.
func (s *testServer) reloadLimits(t *testing.T, edit func(*config.Limits)) {
	t.Helper()
	next := *s.cfg
	edit(&next.Limits)
	if err := s.Reload(next); err != nil {
		t.Fatal(err)
	}
}

// TestReloadChangesConnectionCaps checks, on both transports, that a
// reload lowering max_connections_per_ip and max_connections refuses the
// next handshake with 503 while the connections open stay open, and that
// raising them admits again.
func TestReloadChangesConnectionCaps(t *testing.T) {
	for _, transport := range []string{"epoll", "portable"} {
		t.Run(transport, func(t *testing.T) {
			s := startServer(t, transport, func(c *config.Config) { c.Limits.MaxConnectionsPerIP = 3 })
			open := []interface{ Ping() }{s.connectFrom(t, "127.0.0.2"), s.connectFrom(t, "127.0.0.2")}
			s.reloadLimits(t, func(l *config.Limits) { l.MaxConnectionsPerIP = 1 })
			s.wantRefused(t, "127.0.0.2", "5")
			s.reloadLimits(t, func(l *config.Limits) { l.MaxConnectionsPerIP = 3; l.MaxConnections = 2 })
			s.wantRefused(t, "127.0.0.3", "5")
			for _, c := range open {
				c.Ping()
			}
			s.reloadLimits(t, func(l *config.Limits) { l.MaxConnections = 0 })
			if code, _ := s.handshake(t, "127.0.0.2"); code != http.StatusSwitchingProtocols {
				t.Fatalf("after raising the caps again: %d, want 101", code)
			}
		})
	}
}

// TestReloadChangesHandshakeRate checks that a handshake rate set by a
// reload on a node that started without one refuses past its burst.
func TestReloadChangesHandshakeRate(t *testing.T) {
	s := startServer(t, "epoll", nil)
	s.reloadLimits(t, func(l *config.Limits) { l.HandshakesPerSecondPerIP = 3 })
	firstRefusal(t, s, "127.0.0.2")
	s.reloadLimits(t, func(l *config.Limits) { l.HandshakesPerSecondPerIP = 0 })
	if code, _ := s.handshake(t, "127.0.0.2"); code != http.StatusSwitchingProtocols {
		t.Fatalf("after lifting the rate: %d, want 101", code)
	}
}

// TestReloadLowersTheSubscriptionLimit checks, on both transports, that a
// connection open across a reload lowering
// max_subscriptions_per_connection keeps the channels it holds and gets
// LimitReached for the next one; raising it makes room again.
func TestReloadLowersTheSubscriptionLimit(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) { c.Limits.MaxSubscriptionsPerConnection = 5 })
		c := s.connect(t)
		for i := range 3 {
			c.Subscribe(fmt.Sprint("room-", i))
		}
		s.reloadLimits(t, func(l *config.Limits) { l.MaxSubscriptionsPerConnection = 2 })
		c.Send(`{"event":"pusher:subscribe","data":{"channel":"room-3"}}`)
		if f := c.Expect("pusher:subscription_error"); !strings.Contains(f.String(), "at most 2 channels") {
			t.Fatalf("subscription_error %s, want at most 2 channels", f)
		}
		s.reloadLimits(t, func(l *config.Limits) { l.MaxSubscriptionsPerConnection = 4 })
		c.Subscribe("room-3")
	})
}

// TestReloadLowersTheAPIBodySize checks that a reload lowering
// max_body_size answers the next API request over it 413, and raising it
// serves it again.
func TestReloadLowersTheAPIBodySize(t *testing.T) {
	s := startServer(t, "epoll", nil)
	s.reloadLimits(t, func(l *config.Limits) { l.MaxBodySize = 16 })
	if code := s.publish(t, "room"); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("publish over the lowered max_body_size: %d, want 413", code)
	}
	s.reloadLimits(t, func(l *config.Limits) { l.MaxBodySize = 1 << 20 })
	if code := s.publish(t, "room"); code != http.StatusOK {
		t.Fatalf("publish after raising max_body_size: %d, want 200", code)
	}
}
