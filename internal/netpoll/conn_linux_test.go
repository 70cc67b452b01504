package netpoll

import (
	"net"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestIdleConnIsSmall pins the size of conn, the only heap memory an idle
// connection has (its session included): every byte is paid once per
// connection held, and docs/capacity.md's figures are built on it.
func TestIdleConnIsSmall(t *testing.T) {
	const want = 112 // on 64-bit platforms
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the figure is for 64-bit platforms")
	}
	if size := unsafe.Sizeof(conn{}); size > want {
		t.Errorf("conn is %d bytes, want at most %d", size, want)
	}
}

// TestAcceptedSocketsAreTuned: a socket the loops accept has no Nagle delay
// and has keepalive on, as one Go's net package accepts, set once on the
// listening socket.
func TestAcceptedSocketsAreTuned(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	fd, err := dupFD(ln.(syscall.Conn))
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	tuneSocket(fd)
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var nfd int
	for range 100 {
		if nfd, _, err = unix.Accept4(fd, unix.SOCK_CLOEXEC); err != unix.EAGAIN {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(nfd)
	for _, o := range []struct {
		name       string
		level, opt int
		want       int
	}{
		{"TCP_NODELAY", unix.IPPROTO_TCP, unix.TCP_NODELAY, 1},
		{"SO_KEEPALIVE", unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1},
		{"TCP_KEEPIDLE", unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, 15},
		{"TCP_KEEPINTVL", unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, 15},
	} {
		if v, err := unix.GetsockoptInt(nfd, o.level, o.opt); err != nil || v != o.want {
			t.Errorf("%s = %d, %v; want %d", o.name, v, err, o.want)
		}
	}
}
