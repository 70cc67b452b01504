package netpoll

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/hub"
)

// TestUnlistenAfterShutdown: net/http closes its listener (and with it the
// loops' listening socket) after the server has shut the poller down, so
// Unlisten must return when the loops have already stopped rather than
// wait for an answer no loop will give.
func TestUnlistenAfterShutdown(t *testing.T) {
	h := hub.New(hub.Config{Shards: 2, Encode: func(m *hub.Message) []byte { return []byte(m.Data) }}, 1)
	p, err := New(Config{Loops: 2, Hub: h})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := p.Listen(ln, nil, 4096, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { p.Unlisten(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Unlisten after Shutdown did not return within 10 s")
	}
	if p.lfd != -1 {
		t.Errorf("listening socket %d left open", p.lfd)
	}
}
