package testutil

import (
	"context"
	"net"
	"sync"
)

// PipeListener is a net.Listener whose connections are in-memory pipes
// (net.Pipe). A server that serves one runs entirely inside a
// testing/synctest bubble, where real sockets cannot be used, so its
// timeouts can be tested on the bubble's fake clock. Create it inside the
// bubble; DialContext fits ws.DialOptions.
type PipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

var _ net.Listener = (*PipeListener)(nil)

// NewPipeListener returns a listener with no connection waiting.
func NewPipeListener() *PipeListener {
	return &PipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// Accept waits for DialContext and returns the server's end of its pipe.
func (l *PipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and DialContext; open pipes stay open.
func (l *PipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr returns the listener's address, "pipe".
func (l *PipeListener) Addr() net.Addr { return pipeAddr{} }

// DialContext connects to the listener, whatever the address, and returns
// the client's end of a new pipe once the server has accepted it.
func (l *PipeListener) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.closed:
		return nil, &net.OpError{Op: "dial", Net: "pipe", Err: net.ErrClosed}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pipeAddr is the address of every end of a PipeListener's pipes.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
