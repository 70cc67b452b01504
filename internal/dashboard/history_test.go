package dashboard

import (
	"testing"
	"time"

	"github.com/roostproject/roost/internal/metrics"
)

// TestRSSPerConnectionIsAboveTheEmptyServer checks that the figure is the
// growth since the server was last seen empty, divided by the connections,
// not the whole process divided by them (which reads megabytes for a few
// connections).
func TestRSSPerConnectionIsAboveTheEmptyServer(t *testing.T) {
	var open int64
	h := newHistory(time.Second, func(s *metrics.Snapshot) {
		s.Transports = []metrics.Transport{{Name: "epoll"}}
		s.Transports[0].Open = open
	}, time.Now)
	rss := uint64(20 << 20)
	h.rss = func() uint64 { return rss }

	h.mu.Lock()
	defer h.mu.Unlock()
	if _, s := h.read(); s.RSSPerConn != 0 {
		t.Fatalf("empty server: RSS per connection %v, want 0", s.RSSPerConn)
	}
	open, rss = 1000, rss+600_000
	if _, s := h.read(); s.RSSPerConn != 600 {
		t.Fatalf("1000 connections over 600,000 bytes: RSS per connection %v, want 600", s.RSSPerConn)
	}
	open, rss = 0, 22<<20 // empty again, at a higher floor (a heap that grew)
	h.read()
	open, rss = 10, rss+5_000
	if _, s := h.read(); s.RSSPerConn != 500 {
		t.Fatalf("after a new empty floor: RSS per connection %v, want 500", s.RSSPerConn)
	}
}
