package proxyproto

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"testing"
	"time"
)

// serve starts a Listener on 127.0.0.1:0 trusting trust, and returns it
// with a channel of what each accepted connection read first (its remote
// address and its first 5 bytes) and one of the refusals.
func serve(t *testing.T, trust bool) (*Listener, chan [2]string, chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := make(chan error, 4)
	l := NewListener(ln, Options{Trusted: func(netip.Addr) bool { return trust }, Timeout: time.Minute,
		Refused: func(_ netip.Addr, err error) { refused <- err }})
	got := make(chan [2]string, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			var b [5]byte
			io.ReadFull(c, b[:])
			got <- [2]string{c.RemoteAddr().String(), string(b[:])}
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close() })
	return l, got, refused
}

func send(t *testing.T, l *Listener, s string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestListenerTakesTheClientFromATrustedPeer(t *testing.T) {
	for _, h := range []string{v1TCP4, v2TCP4, v2AWS} {
		l, got, _ := serve(t, true)
		send(t, l, h+"hello")
		if g := <-got; g != [2]string{"203.0.113.7:56324", "hello"} {
			t.Errorf("after %q: accepted %q", h, g)
		}
	}
}

func TestListenerRefusesATrustedPeerWithoutAHeader(t *testing.T) {
	l, _, refused := serve(t, true)
	c := send(t, l, "GET / HTTP/1.1\r\n\r\n")
	if err := <-refused; !errors.Is(err, ErrInvalid) {
		t.Errorf("refused with %v, want ErrInvalid", err)
	}
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("the connection is still open")
	}
}

func TestListenerServesAnUntrustedPeerByItsOwnAddress(t *testing.T) {
	l, got, _ := serve(t, false)
	c := send(t, l, v1TCP4)
	g := <-got
	if g[0] != c.LocalAddr().String() || g[1] != v1TCP4[:5] {
		t.Errorf("accepted %q, want %s and its own bytes", g, c.LocalAddr())
	}
}

func TestListenerTimesOutASilentTrustedPeer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := make(chan error, 1)
	l := NewListener(ln, Options{Trusted: func(netip.Addr) bool { return true }, Timeout: time.Nanosecond,
		Refused: func(_ netip.Addr, err error) { refused <- err }})
	defer l.Close()
	send(t, l, "PROX")
	var ne net.Error
	if err := <-refused; !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("refused with %v, want a timeout", err)
	}
}
