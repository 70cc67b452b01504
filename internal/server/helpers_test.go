package server

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
)

// transports are the two ways roost serves connections; protocol tests run on both.
var transports = []string{"epoll", "portable"}

// testServer is a roost node started in-process on 127.0.0.1:0.
type testServer struct {
	*Server
	addr string
}

func startServer(t testing.TB, transport string, edit func(*config.Config)) *testServer {
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
	ln, err := srv.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return &testServer{Server: srv, addr: ln.Addr().String()}
}

// waitLimit bounds every wait for a condition of an in-process server.
const waitLimit = 10 * time.Second

// url is the WebSocket endpoint of the app with key.
func (s *testServer) url(key string) string {
	return "ws://" + s.addr + "/app/" + key + "?protocol=7&client=js&version=8.6.0"
}

// dial opens a connection to the app with key and reads nothing.
func (s *testServer) dial(t testing.TB, key string) *testutil.Client {
	t.Helper()
	return testutil.Dial(t, s.url(key), nil)
}

// connect opens a connection to the development app and reads
// pusher:connection_established.
func (s *testServer) connect(t testing.TB) *testutil.Client {
	t.Helper()
	return testutil.Connect(t, s.url("app-key"), nil)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
