package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// transports are the two ways roost serves connections; protocol tests run on both.
var transports = []string{"epoll", "portable"}

// testServer is a roost node started in-process, on 127.0.0.1:0 or on
// in-memory pipes.
type testServer struct {
	*Server
	addr string
	opts *ws.DialOptions // how clients reach it; nil for TCP
	wss  bool            // it serves TLS: clients dial wss://
}

// startServer starts a node on 127.0.0.1:0 with the given transport.
func startServer(t testing.TB, transport string, edit func(*config.Config)) *testServer {
	t.Helper()
	srv := newServer(t, transport, edit)
	ln, err := srv.Listen()
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, srv, ln, nil)
}

// startPipeServer starts a node on the portable transport that serves
// in-memory pipes, so that it can run in a testing/synctest bubble: its
// timeouts then run on the bubble's fake clock.
func startPipeServer(t testing.TB, edit func(*config.Config)) *testServer {
	t.Helper()
	ln := testutil.NewPipeListener()
	return serve(t, newServer(t, "portable", edit), ln, &ws.DialOptions{DialContext: ln.DialContext})
}

// newServer builds a node with the given transport, changed by edit.
func newServer(t testing.TB, transport string, edit func(*config.Config)) *Server {
	t.Helper()
	cfg, err := config.Parse([]byte("addr: 127.0.0.1:0\ntransport: "+transport+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// serve runs srv on ln until the test ends.
func serve(t testing.TB, srv *Server, ln net.Listener, opts *ws.DialOptions) *testServer {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return &testServer{Server: srv, addr: ln.Addr().String(), opts: opts}
}

// waitLimit bounds every wait for a condition of an in-process server.
const waitLimit = 10 * time.Second

// url is the WebSocket endpoint of the app with key.
func (s *testServer) url(key string) string {
	scheme := "ws://"
	if s.wss {
		scheme = "wss://"
	}
	return scheme + s.addr + "/app/" + key + "?protocol=7&client=js&version=8.6.0"
}

// dial opens a connection to the app with key and reads nothing.
func (s *testServer) dial(t testing.TB, key string) *testutil.Client {
	t.Helper()
	return testutil.Dial(t, s.url(key), s.opts)
}

// connect opens a connection to the development app and reads
// pusher:connection_established.
func (s *testServer) connect(t testing.TB) *testutil.Client {
	t.Helper()
	return testutil.Connect(t, s.url("app-key"), s.opts)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// channelOf reports a channel of the development app, as the HTTP API would.
func channelOf(s interface{ Hub() *hub.Hub }, name string) hub.ChannelStats {
	st, _ := s.Hub().Channel(context.Background(), "app-id", name)
	return st
}
