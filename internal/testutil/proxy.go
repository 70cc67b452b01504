package testutil

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to a target, and can be cut to play a
// server going away and coming back (a restart) without touching the real
// server, which other tests share.
type Proxy struct {
	// Addr is the proxy's own 127.0.0.1 address.
	Addr   string
	target string
	ln     net.Listener

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}
}

// NewProxy starts a proxy to target on 127.0.0.1:0, closed when the test
// ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.accept()
	}()
	t.Cleanup(func() {
		ln.Close()
		p.Cut()
		<-done
	})
	return p
}

// Cut closes every forwarded connection and refuses new ones until
// Restore: to a client, the server is down.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Restore forwards connections again: the server is back.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

// forward pipes one client connection to a new connection to the target.
func (p *Proxy) forward(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	if !p.track(c, s) {
		c.Close()
		s.Close()
		return
	}
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
	c.Close()
}

// track registers both ends unless the proxy is cut.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}
