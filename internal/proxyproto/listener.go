package proxyproto

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"
)

// Listener hands out the connections of a net.Listener. From a peer that
// Trusted accepts, it first reads a PROXY header, on a goroutine of its own
// within Timeout, so that Accept never waits on a slow peer; a connection
// that sends no valid header in time is closed and Refused is told. A
// connection from any other peer is handed out as it is, known by its own
// address, and its bytes are its own.
//
// A goroutine accepts on the listener and hands each connection, or an
// error, to Accept over an unbuffered channel: a failing accept(2) waits
// for the next Accept call, whose caller backs off as net/http does.
type Listener struct {
	ln      net.Listener
	opts    Options
	ready   chan accepted
	done    chan struct{}
	once    sync.Once
	running sync.WaitGroup // the accepting and header-reading goroutines

	mu      sync.Mutex // guards reading
	reading map[net.Conn]struct{}
}

// Options configures a Listener.
type Options struct {
	// Trusted reports whether a peer's PROXY header is read; nil trusts none.
	Trusted func(netip.Addr) bool
	// Timeout bounds the read of one header.
	Timeout time.Duration
	// Refused, when not nil, is told of each connection closed for its
	// header (err wraps ErrInvalid, or is a timeout or read error).
	Refused func(peer netip.Addr, err error)
}

type accepted struct {
	c   net.Conn
	err error
}

// NewListener starts handing out the connections of ln.
func NewListener(ln net.Listener, opts Options) *Listener {
	l := &Listener{ln: ln, opts: opts, ready: make(chan accepted), done: make(chan struct{}),
		reading: make(map[net.Conn]struct{})}
	l.running.Add(1)
	go l.acceptLoop()
	return l
}

// Accept implements net.Listener.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case a := <-l.ready:
		return a.c, a.err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener: it closes the listener and every
// connection whose header is being read, and waits for its goroutines.
func (l *Listener) Close() error {
	var err error
	l.once.Do(func() {
		close(l.done)
		err = l.ln.Close()
		l.mu.Lock()
		for c := range l.reading {
			c.Close()
		}
		l.mu.Unlock()
		l.running.Wait()
	})
	return err
}

// Addr implements net.Listener.
func (l *Listener) Addr() net.Addr { return l.ln.Addr() }

func (l *Listener) acceptLoop() {
	defer l.running.Done()
	for {
		c, err := l.ln.Accept()
		switch {
		case err != nil:
			if !l.hand(accepted{err: err}) || errors.Is(err, net.ErrClosed) {
				return
			}
		case l.opts.Trusted != nil && l.opts.Trusted(peerAddr(c)):
			l.startReading(c)
		default:
			l.hand(accepted{c: c})
		}
	}
}

// hand gives a to Accept; false when the listener closed first (a's
// connection is then closed).
func (l *Listener) hand(a accepted) bool {
	select {
	case l.ready <- a:
		return true
	case <-l.done:
		if a.c != nil {
			a.c.Close()
		}
		return false
	}
}

// startReading reads c's header on a goroutine of its own.
func (l *Listener) startReading(c net.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.done:
		c.Close()
		return
	default:
	}
	l.reading[c] = struct{}{}
	l.running.Add(1)
	go l.proxied(c)
}

// proxied reads c's header and hands c out, known by its client's address.
func (l *Listener) proxied(c net.Conn) {
	defer l.running.Done()
	pc, err := ReadHeader(c, l.opts.Timeout)
	l.mu.Lock()
	delete(l.reading, c)
	l.mu.Unlock()
	if err != nil {
		c.Close()
		if l.opts.Refused != nil {
			l.opts.Refused(peerAddr(c), err)
		}
		return
	}
	l.hand(accepted{c: pc})
}

// ReadHeader reads a PROXY header from c within timeout, reading no byte
// past it, and returns c known by the client's address the header names
// (c itself when it names none).
func ReadHeader(c net.Conn, timeout time.Duration) (net.Conn, error) {
	c.SetReadDeadline(time.Now().Add(timeout))
	var buf [MaxHeader]byte
	n := 0
	for {
		h, _, err := Parse(buf[:n])
		if err == nil {
			c.SetReadDeadline(time.Time{})
			return withSource(c, h), nil
		}
		if err != ErrIncomplete {
			return nil, err
		}
		m, err := io.ReadFull(c, buf[n:n+need(buf[:n])])
		n += m
		if err != nil {
			return nil, err
		}
	}
}

// need is how many more bytes surely belong to the incomplete header b: a
// header is at least 15 bytes; a version 2 header says its length after
// 16; a version 1 header ends at a CRLF, so is read a byte at a time.
func need(b []byte) int {
	switch {
	case len(b) < 15:
		return 15 - len(b)
	case b[0] != sigV2[0]:
		return 1
	case len(b) < v2Fixed:
		return v2Fixed - len(b)
	}
	return v2Fixed + int(b[14])<<8 + int(b[15]) - len(b)
}

func withSource(c net.Conn, h Header) net.Conn {
	if !h.Source.IsValid() {
		return c
	}
	return &Conn{Conn: c, remote: net.TCPAddrFromAddrPort(h.Source)}
}

// peerAddr is c's peer address, or the zero Addr.
func peerAddr(c net.Conn) netip.Addr {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// Conn is a connection a PROXY header came on: its RemoteAddr is the
// client the header named.
type Conn struct {
	net.Conn
	remote net.Addr
}

// RemoteAddr implements net.Conn: the client's address.
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// NetConn returns the connection under c.
func (c *Conn) NetConn() net.Conn { return c.Conn }

// SyscallConn reaches the socket under c (syscall.Conn).
func (c *Conn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return sc.SyscallConn()
}
