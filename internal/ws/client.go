package ws

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// clientReadBuffer is the client's only read buffer: small, because the
// load tool holds ~19,000 clients per process.
const clientReadBuffer = 4 << 10

// defaultClientMaxMessage bounds what ReadMessage accepts when
// DialOptions.MaxMessage is zero.
const defaultClientMaxMessage = 16 << 20

// DialOptions configures Dial. A nil *DialOptions means all defaults.
type DialOptions struct {
	// LocalAddr is the source IP to dial from, optionally with a port
	// ("127.0.0.2" or "127.0.0.2:0"), so that a load test can spread its
	// connections over source addresses past the ~28K ephemeral ports of
	// one. Zero value: the kernel chooses.
	LocalAddr string
	// Header holds extra handshake request headers (Origin, Cookie, ...).
	// Nil means none.
	Header http.Header
	// TLSConfig is used for wss:// URLs. Nil means a default configuration
	// for the URL's host.
	TLSConfig *tls.Config
	// MaxMessage bounds the size of a message ReadMessage accepts, in
	// bytes. Zero means 16 MiB.
	MaxMessage int
	// Deflate offers permessage-deflate (RFC 7692) without context
	// takeover either way; if the server accepts, ReadMessage inflates its
	// compressed messages (writes stay uncompressed, as 7692 allows). Zero
	// value: no offer.
	Deflate bool
	// DialContext opens the connection that the handshake (and, for wss://,
	// TLS) runs over, for instance an in-memory pipe in a test. Nil means a
	// net.Dialer from LocalAddr.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Client is a minimal WebSocket client (RFC 6455) for Go tests and the load
// tool. It starts no goroutine and owns one 4 KB read buffer. It answers
// nothing by itself: pings, pongs and close frames are returned by
// ReadMessage for the caller to act on. Writes are safe for concurrent use;
// ReadMessage must be called from one goroutine at a time.
type Client struct {
	conn net.Conn
	br   *bufio.Reader
	max  int

	rop  Opcode // opcode of the fragmented message being read, 0 if none
	rmsg []byte // fragments of that message; reused
	rz   bool   // that message is compressed

	deflate bool // the server accepted permessage-deflate

	wmu  sync.Mutex // guards wbuf and serialises frames on conn
	wbuf []byte
}

// Dial opens a WebSocket connection to a ws:// or wss:// URL and performs
// the opening handshake (RFC 6455 4.1). ctx bounds the dial and the
// handshake, not the connection's life.
func Dial(ctx context.Context, rawURL string, opts *DialOptions) (*Client, error) {
	if opts == nil {
		opts = &DialOptions{}
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("websocket: dial: %w", err)
	}
	conn, err := dialConn(ctx, u, opts)
	if err != nil {
		return nil, fmt.Errorf("websocket: dial %s: %w", u.Host, err)
	}
	c := &Client{conn: conn, br: bufio.NewReaderSize(conn, clientReadBuffer), max: opts.MaxMessage}
	if c.max <= 0 {
		c.max = defaultClientMaxMessage
	}
	header := opts.Header
	if opts.Deflate {
		header = header.Clone()
		if header == nil {
			header = http.Header{}
		}
		header.Set("Sec-WebSocket-Extensions", clientDeflateOffer)
	}
	if err := c.handshake(ctx, u, header); err != nil {
		conn.Close()
		return nil, fmt.Errorf("websocket: handshake with %s: %w", u.Host, err)
	}
	return c, nil
}

// dialConn opens the TCP (or TLS) connection for u.
func dialConn(ctx context.Context, u *url.URL, opts *DialOptions) (net.Conn, error) {
	dial, err := dialer(opts)
	if err != nil {
		return nil, err
	}
	switch u.Scheme {
	case "ws":
		return dial(ctx, "tcp", hostPort(u, "80"))
	case "wss":
		conn, err := dial(ctx, "tcp", hostPort(u, "443"))
		if err != nil {
			return nil, err
		}
		return clientTLS(ctx, conn, u, opts.TLSConfig)
	}
	return nil, fmt.Errorf("unsupported scheme %q, want ws or wss", u.Scheme)
}

// dialer returns opts.DialContext, or a net.Dialer's from opts.LocalAddr.
func dialer(opts *DialOptions) (func(context.Context, string, string) (net.Conn, error), error) {
	if opts.DialContext != nil {
		return opts.DialContext, nil
	}
	var d net.Dialer
	if opts.LocalAddr != "" {
		addr, err := localAddr(opts.LocalAddr)
		if err != nil {
			return nil, err
		}
		d.LocalAddr = addr
	}
	return d.DialContext, nil
}

// clientTLS runs the TLS handshake over conn, checking the certificate
// against u's host unless cfg names another server.
func clientTLS(ctx context.Context, conn net.Conn, u *url.URL, cfg *tls.Config) (net.Conn, error) {
	if cfg == nil {
		cfg = &tls.Config{}
	}
	if cfg.ServerName == "" {
		cfg = cfg.Clone()
		cfg.ServerName = u.Hostname()
	}
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tc, nil
}

// localAddr parses DialOptions.LocalAddr: an IP, or an IP with a port.
func localAddr(s string) (*net.TCPAddr, error) {
	if ip := net.ParseIP(s); ip != nil {
		return &net.TCPAddr{IP: ip}, nil
	}
	addr, err := net.ResolveTCPAddr("tcp", s)
	if err != nil {
		return nil, fmt.Errorf("local address %q: %w", s, err)
	}
	return addr, nil
}

// hostPort returns u's host with the scheme's default port if none.
func hostPort(u *url.URL, port string) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// handshake sends the opening request and checks the 101 response, within
// ctx's deadline and cancellation.
func (c *Client) handshake(ctx context.Context, u *url.URL, extra http.Header) error {
	if dl, ok := ctx.Deadline(); ok {
		c.conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.conn.SetDeadline(time.Unix(1, 0)) })
	err := c.exchange(u, extra)
	if !stop() {
		return context.Cause(ctx)
	}
	if err != nil {
		return err
	}
	return c.conn.SetDeadline(time.Time{})
}

// exchange writes the request of RFC 6455 4.1 and verifies the answer.
func (c *Client) exchange(u *url.URL, extra http.Header) error {
	key := newClientKey()
	if _, err := c.conn.Write(handshakeRequest(u, key, extra)); err != nil {
		return err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if err := checkSwitching(resp, key); err != nil {
		return err
	}
	c.deflate, err = acceptedDeflate(resp.Header.Values("Sec-WebSocket-Extensions"), extra)
	return err
}

// clientDeflateOffer is the Client's permessage-deflate offer: no context
// takeover either way, so it keeps no window between messages.
const clientDeflateOffer = "permessage-deflate; server_no_context_takeover; client_no_context_takeover"

// acceptedDeflate reads the server's Sec-WebSocket-Extensions: nothing, or
// an acceptance of the client's permessage-deflate offer that keeps to it
// (RFC 7692 5 and 7.1); anything else fails the handshake.
func acceptedDeflate(values []string, request http.Header) (bool, error) {
	if len(values) == 0 {
		return false, nil
	}
	if request.Get("Sec-WebSocket-Extensions") != clientDeflateOffer {
		return false, errors.New("server chose an extension that was not offered")
	}
	if _, ok := acceptIn(values[0]); len(values) != 1 || !ok || !strings.Contains(values[0], "server_no_context_takeover") || strings.Contains(values[0], ",") {
		return false, fmt.Errorf("server answered the permessage-deflate offer with %q", values)
	}
	return true, nil
}

// Deflated reports whether the server accepted permessage-deflate.
func (c *Client) Deflated() bool { return c.deflate }

// newClientKey returns a random 16-byte nonce, base64-encoded (4.1).
func newClientKey() string {
	var nonce [16]byte
	rand.Read(nonce[:])
	return base64.StdEncoding.EncodeToString(nonce[:])
}

// handshakeRequest builds the client's opening handshake (RFC 6455 4.1).
func handshakeRequest(u *url.URL, key string, extra http.Header) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\n", u.RequestURI(), u.Host)
	b.WriteString("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n")
	fmt.Fprintf(&b, "Sec-WebSocket-Key: %s\r\n", key)
	extra.Write(&b)
	b.WriteString("\r\n")
	return b.Bytes()
}

// checkSwitching verifies the server's 101 response (RFC 6455 4.1, the
// client's checks of the server's handshake).
func checkSwitching(resp *http.Response, key string) error {
	switch {
	case resp.StatusCode != http.StatusSwitchingProtocols:
		return fmt.Errorf("unexpected response %q", resp.Status)
	case !hasToken(resp.Header.Values("Upgrade"), "websocket"):
		return errors.New("response lacks \"Upgrade: websocket\"")
	case !hasToken(resp.Header.Values("Connection"), "upgrade"):
		return errors.New("response lacks \"Connection: Upgrade\"")
	case resp.Header.Get("Sec-WebSocket-Accept") != AcceptKey(key):
		return errors.New("wrong Sec-WebSocket-Accept")
	case resp.Header.Get("Sec-WebSocket-Protocol") != "":
		return errors.New("server chose a subprotocol that was not offered")
	}
	return nil
}

// NetConn returns the underlying connection, to set deadlines or read
// addresses.
func (c *Client) NetConn() net.Conn { return c.conn }

// Close closes the connection at once, without a closing handshake; send
// WriteClose first for a clean close.
func (c *Client) Close() error { return c.conn.Close() }
