package ws

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// echoConn is the Handler of a goroutine-per-connection test server built
// on Upgrade and Decode, the way roost's portable transport works.
type echoConn struct {
	r      *http.Request
	out    []byte
	closed bool
}

func (e *echoConn) OnText(p []byte) bool {
	switch string(p) {
	case "fragment please":
		e.out = append(e.out, serverFragments("frag", "ment")[:6]...) // first fragment
		e.out = AppendFrame(e.out, OpPing, []byte("mid"))
		e.out = append(e.out, serverFragments("frag", "ment")[6:]...)
	case "who am i":
		host, _, _ := net.SplitHostPort(e.r.RemoteAddr)
		e.out = AppendFrame(e.out, OpText, []byte(host))
	case "origin please":
		e.out = AppendFrame(e.out, OpText, []byte(e.r.Header.Get("Origin")))
	default:
		e.out = AppendFrame(e.out, OpText, p)
	}
	return true
}

func (e *echoConn) OnPing(p []byte) bool { e.out = AppendFrame(e.out, OpPong, p); return true }
func (e *echoConn) OnPong([]byte) bool   { return true }

func (e *echoConn) OnClose(code CloseCode, reason []byte) bool {
	e.out = AppendClose(e.out, code, string(reason))
	e.closed = true
	return false
}

// startEchoServer runs the echo server and returns its ws:// URL.
func startEchoServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buffered, _, err := Upgrade(w, r, nil)
		if err == nil {
			serveEcho(conn, buffered, &echoConn{r: r})
		}
	}))
	t.Cleanup(srv.Close)
	return "ws://" + srv.Listener.Addr().String() + "/app/key"
}

// serveEcho reads, decodes and answers until the client closes or fails.
func serveEcho(conn net.Conn, pending []byte, h *echoConn) {
	defer conn.Close()
	var (
		st   State
		frag []byte
		buf  = make([]byte, 4096)
	)
	defer Discard(&st, &frag)
	for {
		n, err := Decode(&st, pending, 1<<20, &frag, h)
		pending = append(pending[:0], pending[n:]...)
		if err != nil {
			var ce *CloseError
			errors.As(err, &ce)
			h.out = AppendClose(h.out, ce.Code, ce.Reason)
		}
		if _, werr := conn.Write(h.out); werr != nil || err != nil || h.closed {
			return
		}
		h.out = h.out[:0]
		m, err := conn.Read(buf)
		if err != nil {
			return
		}
		pending = append(pending, buf[:m]...)
	}
}

func dialEcho(t *testing.T, opts *DialOptions) *Client {
	t.Helper()
	c, err := Dial(context.Background(), startEchoServer(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// expect reads one message and checks it.
func expect(t *testing.T, c *Client, op Opcode, payload string) {
	t.Helper()
	gotOp, got, err := c.ReadMessage()
	if err != nil || gotOp != op || string(got) != payload {
		t.Fatalf("ReadMessage = %v %q %v, want %v %q", gotOp, got, err, op, payload)
	}
}

func TestClientRoundTrip(t *testing.T) {
	c := dialEcho(t, nil)
	must(t, c.WriteText([]byte(`{"event":"pusher:ping","data":{}}`)))
	expect(t, c, OpText, `{"event":"pusher:ping","data":{}}`)
	must(t, c.WritePing([]byte("are you there")))
	expect(t, c, OpPong, "are you there")
	must(t, c.WriteText([]byte("fragment please")))
	expect(t, c, OpPing, "mid")
	expect(t, c, OpText, "fragment")
	big := strings.Repeat("é", 50000)
	must(t, c.WriteText([]byte(big)))
	expect(t, c, OpText, big)
	must(t, c.WriteClose(CloseNormal, "bye"))
	expect(t, c, OpClose, "\x03\xe8bye")
	if _, _, err := c.ReadMessage(); err != io.EOF {
		t.Fatalf("after the closing handshake: %v, want EOF", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestClientServerFailures(t *testing.T) {
	tests := []struct {
		name string
		send func(c *Client) error
		code CloseCode
	}{
		{"binary", func(c *Client) error { return c.WriteFrame(OpBinary, []byte{1}) }, CloseUnsupportedData},
		{"unmasked", func(c *Client) error { return c.WriteRaw(AppendFrame(nil, OpText, []byte("x"))) }, CloseProtocolError},
		{"invalid UTF-8", func(c *Client) error { return c.WriteText([]byte{0xff}) }, CloseInvalidPayload},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dialEcho(t, nil)
			must(t, tt.send(c))
			op, body, err := c.ReadMessage()
			code, _, perr := ParseClose(body)
			if err != nil || op != OpClose || perr != nil || code != tt.code {
				t.Fatalf("got %v %q %v, want close %d", op, body, err, tt.code)
			}
		})
	}
}

func TestClientOptions(t *testing.T) {
	c := dialEcho(t, &DialOptions{LocalAddr: "127.0.0.2", Header: http.Header{"Origin": {"https://example.com"}}})
	must(t, c.WriteText([]byte("who am i")))
	expect(t, c, OpText, "127.0.0.2")
	must(t, c.WriteText([]byte("origin please")))
	expect(t, c, OpText, "https://example.com")
}

// TestClientDialContext: a DialContext option opens the connection, for
// the address of the URL.
func TestClientDialContext(t *testing.T) {
	url := startEchoServer(t)
	var got string
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		got = network + " " + addr
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	c, err := Dial(context.Background(), url, &DialOptions{DialContext: dial})
	must(t, err)
	t.Cleanup(func() { c.Close() })
	must(t, c.WriteText([]byte("hello")))
	expect(t, c, OpText, "hello")
	host, _, _ := strings.Cut(strings.TrimPrefix(url, "ws://"), "/")
	if want := "tcp " + host; got != want {
		t.Fatalf("DialContext called with %q, want %q", got, want)
	}
}

func TestClientMaxMessage(t *testing.T) {
	c := dialEcho(t, &DialOptions{MaxMessage: 10})
	must(t, c.WriteText([]byte(stars(11))))
	if _, _, err := c.ReadMessage(); err == nil || closeCode(t, err) != CloseTooBig {
		t.Fatalf("ReadMessage of 11 bytes with a limit of 10: %v", err)
	}
}

func TestDialErrors(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)
	wrongAccept := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Upgrade", "websocket")
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Sec-WebSocket-Accept", rfcAccept)
		w.WriteHeader(http.StatusSwitchingProtocols)
	}))
	t.Cleanup(wrongAccept.Close)
	tests := []struct {
		name string
		ctx  context.Context
		url  string
		opts *DialOptions
	}{
		{"scheme", context.Background(), "http://127.0.0.1:1/", nil},
		{"bad url", context.Background(), "ws://[::1", nil},
		{"cancelled", cancelled, startEchoServer(t), nil},
		{"bad local address", context.Background(), startEchoServer(t), &DialOptions{LocalAddr: "not an address"}},
		{"dial fails", context.Background(), startEchoServer(t), &DialOptions{DialContext: func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("no route")
		}}},
		{"404", context.Background(), "ws" + strings.TrimPrefix(notFound.URL, "http"), nil},
		{"wrong accept", context.Background(), "ws" + strings.TrimPrefix(wrongAccept.URL, "http"), nil},
	}
	for _, tt := range tests {
		if c, err := Dial(tt.ctx, tt.url, tt.opts); err == nil {
			c.Close()
			t.Errorf("%s: Dial succeeded", tt.name)
		}
	}
}

// TestDialCancelledDuringHandshake cancels the context while the server
// sits on the request: Dial must give up rather than wait forever.
func TestDialCancelledDuringHandshake(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	t.Cleanup(func() { ln.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		conn.Read(make([]byte, 1024)) // the request arrived; never answer
		cancel()
		conn.Read(make([]byte, 1)) // until the client hangs up
	}()
	if _, err := Dial(ctx, "ws://"+ln.Addr().String()+"/", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Dial = %v, want context.Canceled", err)
	}
	<-done
}

func TestClientReadMessageErrors(t *testing.T) {
	ok := AppendFrame(nil, OpText, []byte("ok"))
	tests := []struct {
		name   string
		stream []byte
		code   CloseCode // 0: an I/O error
	}{
		{"masked", text("x"), CloseProtocolError},
		{"reserved bits", append([]byte{0xC1, 0}, ok...), CloseProtocolError},
		{"reserved opcode", []byte{0x83, 0}, CloseProtocolError},
		{"fragmented ping", []byte{0x09, 0}, CloseProtocolError},
		{"stray continuation", []byte{0x80, 0}, CloseProtocolError},
		{"text inside text", append([]byte{0x01, 0}, ok...), CloseProtocolError},
		{"invalid UTF-8", AppendFrame(nil, OpText, []byte{0xff}), CloseInvalidPayload},
		{"invalid UTF-8 in fragments", serverFragments("\xe2", "\x28"), CloseInvalidPayload},
		{"cut in the header", ok[:1], 0},
		{"cut in the payload", ok[:3], 0},
	}
	for _, tt := range tests {
		_, _, err := newStreamClient(tt.stream, 100).ReadMessage()
		var ce *CloseError
		switch {
		case tt.code == 0 && (err == nil || errors.As(err, &ce)):
			t.Errorf("%s: %v, want an I/O error", tt.name, err)
		case tt.code != 0 && (!errors.As(err, &ce) || ce.Code != tt.code):
			t.Errorf("%s: %v, want close code %d", tt.name, err, tt.code)
		}
	}
}

func TestClientBinaryFragments(t *testing.T) {
	stream := serverFragments("ab", "cd")
	stream[0] = byte(OpBinary) // the first fragment's opcode
	c := newStreamClient(stream, 100)
	if op, p, err := c.ReadMessage(); op != OpBinary || string(p) != "abcd" || err != nil {
		t.Fatalf("ReadMessage = %v %q %v", op, p, err)
	}
}

// TestClientFrameRightAfterHandshake: a server may send its first frame in
// the same segment as the 101 response (roost sends
// pusher:connection_established at once); the client must not lose it.
func TestClientFrameRightAfterHandshake(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	t.Cleanup(func() { ln.Close() })
	welcome := `{"event":"pusher:connection_established","data":"{\"socket_id\":\"123.456\",\"activity_timeout\":120}"}`
	done := make(chan struct{})
	go func() {
		defer close(done)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		req, err := http.ReadRequest(bufio.NewReader(conn))
		if err != nil {
			return
		}
		resp := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Accept: " + AcceptKey(req.Header.Get("Sec-WebSocket-Key")) + "\r\n\r\n"
		conn.Write(AppendFrame([]byte(resp), OpText, []byte(welcome)))
		conn.Read(make([]byte, 1)) // until the client hangs up
	}()
	c, err := Dial(context.Background(), "ws://"+ln.Addr().String()+"/app/key", nil)
	must(t, err)
	expect(t, c, OpText, welcome)
	c.Close()
	<-done
}

func TestClientTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buffered, _, err := Upgrade(w, r, nil)
		if err == nil {
			serveEcho(conn, buffered, &echoConn{r: r})
		}
	}))
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	url := "wss://" + srv.Listener.Addr().String() + "/app/key"
	c, err := Dial(context.Background(), url, &DialOptions{TLSConfig: &tls.Config{RootCAs: roots}})
	must(t, err)
	defer c.Close()
	must(t, c.WriteText([]byte("over TLS")))
	expect(t, c, OpText, "over TLS")
}
