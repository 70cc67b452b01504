package server

import (
	"runtime"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
)

// TestLoopCount checks which transport serves connections on a platform
// with epoll and on one without: "auto" falls back to portable, "epoll"
// without epoll is refused at startup, and TLS changes nothing.
// TestUseUring: "auto" writes fan-out with io_uring where the kernel
// allows it, "epoll+uring" always (and fails to start without it), "epoll"
// never, nor of course "portable".
func TestUseUring(t *testing.T) {
	for _, tt := range []struct {
		transport string
		works     bool
		want      bool
	}{
		{config.TransportAuto, true, true},
		{config.TransportAuto, false, false},
		{config.TransportEpollUring, false, true},
		{config.TransportEpoll, true, false},
		{config.TransportPortable, true, false},
	} {
		if got := useUring(tt.transport, func() bool { return tt.works }); got != tt.want {
			t.Errorf("useUring(%q) where io_uring works: %v = %v, want %v", tt.transport, tt.works, got, tt.want)
		}
	}
}

func TestLoopCount(t *testing.T) {
	tls := config.TLS{CertFile: "c.pem", KeyFile: "k.pem"}
	tests := []struct {
		name      string
		transport string
		tls       config.TLS
		loops     int
		epoll     bool
		want      int
		wantErr   bool
	}{
		{"auto with epoll", config.TransportAuto, config.TLS{}, 0, true, runtime.GOMAXPROCS(0), false},
		{"auto with epoll, loops set", config.TransportAuto, config.TLS{}, 3, true, 3, false},
		{"auto with TLS", config.TransportAuto, tls, 3, true, 3, false},
		{"epoll with TLS", config.TransportEpoll, tls, 2, true, 2, false},
		{"auto with TLS without epoll", config.TransportAuto, tls, 3, false, 0, false},
		{"auto without epoll", config.TransportAuto, config.TLS{}, 3, false, 0, false},
		{"portable", config.TransportPortable, config.TLS{}, 3, true, 0, false},
		{"epoll", config.TransportEpoll, config.TLS{}, 2, true, 2, false},
		{"epoll without epoll", config.TransportEpoll, config.TLS{}, 2, false, 0, true},
		{"epoll+uring", config.TransportEpollUring, config.TLS{}, 2, true, 2, false},
		{"epoll+uring without epoll", config.TransportEpollUring, config.TLS{}, 2, false, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &config.Config{Transport: tt.transport, TLS: tt.tls, Loops: tt.loops}
			got, err := loopCount(c, tt.epoll)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), `transport "`+tt.transport+`"`) {
					t.Fatalf("loopCount = %d, %v; want an error naming transport %q", got, err, tt.transport)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("loopCount = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}
