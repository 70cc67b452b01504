package server

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// rawStream is an xhr_streaming request over a bare TCP connection, read
// on the test's goroutine, so that a client starts no goroutine.
type rawStream struct {
	t  testing.TB
	nc net.Conn
	r  *bufio.Reader
}

// openRawStream sends the request pusher-js sends for session sess.
func openRawStream(t testing.TB, s *testServer, sess string) *rawStream {
	t.Helper()
	var nc net.Conn
	var err error
	if s.wss {
		nc, err = tls.Dial("tcp", s.addr, s.opts.TLSConfig)
	} else {
		nc, err = net.Dial("tcp", s.addr)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	req := "POST /pusher/app/app-key/7/" + sess + "/xhr_streaming?protocol=7&client=js&version=8.6.0&t=1&n=1 HTTP/1.1\r\n" +
		"Host: " + s.addr + "\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n"
	if _, err := nc.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	return &rawStream{t: t, nc: nc, r: bufio.NewReader(nc)}
}

// head reads the response's status line and headers.
func (c *rawStream) head() (status string, header map[string]string) {
	c.t.Helper()
	header = map[string]string{}
	for {
		l, err := c.r.ReadString('\n')
		if err != nil {
			c.t.Fatalf("response head: %v after %q", err, l)
		}
		l = strings.TrimSuffix(l, "\r\n")
		switch {
		case l == "":
			return status, header
		case status == "":
			status = l
		default:
			k, v, _ := strings.Cut(l, ": ")
			header[k] = v
		}
	}
}

// chunk reads one chunk of the chunked body; "" is the last chunk.
func (c *rawStream) chunk() string {
	c.t.Helper()
	size, err := c.r.ReadString('\n')
	if err != nil {
		c.t.Fatalf("chunk size: %v after %q", err, size)
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(size, "\r\n"), 16, 64)
	if err != nil {
		c.t.Fatalf("chunk size %q: %v", size, err)
	}
	b := make([]byte, n+2)
	if _, err := io.ReadFull(c.r, b); err != nil || string(b[n:]) != "\r\n" {
		c.t.Fatalf("chunk of %d: %v, %q", n, err, b)
	}
	return string(b[:n])
}

// chunkWith reads chunks until one contains want.
func (c *rawStream) chunkWith(want string) string {
	c.t.Helper()
	for {
		if ch := c.chunk(); strings.Contains(ch, want) || ch == "" {
			return ch
		}
	}
}

// TestIdleStreamsOwnNoGoroutine opens idle xhr_streaming sessions on the
// epoll transport, over HTTP and HTTPS, and checks that, once their "o"
// and connection_established are out, net/http has let them go: no
// goroutine is left per stream. A publish still reaches one, chunked as
// net/http chunks, and a client's close is noticed.
func TestIdleStreamsOwnNoGoroutine(t *testing.T) {
	t.Run("http", func(t *testing.T) { idleStreamsOwnNoGoroutine(t, startServer(t, "epoll", nil)) })
	t.Run("https", func(t *testing.T) { idleStreamsOwnNoGoroutine(t, startTLSServer(t, "epoll", nil)) })
}

func idleStreamsOwnNoGoroutine(t *testing.T, s *testServer) {
	first := openRawStream(t, s, "aaaaaaaa")
	status, header := first.head()
	if status != "HTTP/1.1 200 OK" || header["Transfer-Encoding"] != "chunked" || header["Connection"] != "close" {
		t.Fatalf("stream answered %q %v", status, header)
	}
	if o := first.chunk(); o != "o\n" {
		t.Fatalf("stream began %q", o)
	}
	first.chunkWith("connection_established")
	testutil.Eventually(t, waitLimit, "the stream held by a loop", func() bool { return s.poller.Holding() == 1 })
	before := runtime.NumGoroutine()
	const n = 50
	for i := range n {
		c := openRawStream(t, s, "b"+strconv.Itoa(1000000+i))
		c.head()
		c.chunkWith("connection_established")
	}
	testutil.Eventually(t, waitLimit, "every stream held by a loop", func() bool { return s.poller.Holding() == n+1 })
	testutil.Eventually(t, waitLimit, "no goroutine per stream", func() bool {
		return runtime.NumGoroutine()-before < n/10
	})
	sendRaw(t, s, "aaaaaaaa", `{"event":"pusher:subscribe","data":{"auth":"","channel":"news"}}`)
	first.chunkWith("subscription_succeeded")
	s.Hub().Publish("app-id", hub.Publication{Channels: []string{"news"}, Event: "story", Data: "hello"})
	if got := first.chunkWith(`story`); !strings.HasPrefix(got, `a["{\"event\":\"story\"`) {
		t.Errorf("publish arrived as %q", got)
	}
	first.nc.Close()
	testutil.Eventually(t, waitLimit, "the client's close noticed", func() bool { return s.poller.Holding() == n })
}

// sendRaw posts one client message of session sess with xhr_send.
func sendRaw(t *testing.T, s *testServer, sess, msg string) {
	t.Helper()
	c := newFallbackClient(t, s, sess)
	c.send(msg)
	c.http.CloseIdleConnections()
}
