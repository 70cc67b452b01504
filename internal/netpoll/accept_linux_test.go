package netpoll

import (
	"net/netip"
	"testing"

	"golang.org/x/sys/unix"
)

// sockaddrOf returns the address family and socket address of ip, port 0.
func sockaddrOf(ip netip.Addr) (int, unix.Sockaddr) {
	if ip.Is6() {
		return unix.AF_INET6, &unix.SockaddrInet6{Addr: ip.As16()}
	}
	return unix.AF_INET, &unix.SockaddrInet4{Addr: ip.As4()}
}

// loopbackListener returns a non-blocking listening socket on ip:0 and
// the address it is bound to.
func loopbackListener(tb testing.TB, ip netip.Addr) (int, unix.Sockaddr) {
	tb.Helper()
	family, sa := sockaddrOf(ip)
	lfd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		tb.Skip("no socket of this family:", err)
	}
	tb.Cleanup(func() { unix.Close(lfd) })
	if err := unix.Bind(lfd, sa); err != nil {
		tb.Skip("cannot bind", ip, err)
	}
	if err := unix.Listen(lfd, 128); err != nil {
		tb.Fatal(err)
	}
	bound, err := unix.Getsockname(lfd)
	if err != nil {
		tb.Fatal(err)
	}
	return lfd, bound
}

// dialFrom connects a blocking socket from src to the listener at to.
func dialFrom(tb testing.TB, src netip.Addr, to unix.Sockaddr) int {
	tb.Helper()
	family, from := sockaddrOf(src)
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if err := unix.Bind(fd, from); err != nil {
		unix.Close(fd)
		tb.Skip("cannot bind", src, err)
	}
	if err := unix.Connect(fd, to); err != nil {
		unix.Close(fd)
		tb.Fatal(err)
	}
	return fd
}

// TestAcceptFromReportsThePeer: the address acceptFrom decodes is the one
// the client dialled from, for IPv4 and IPv6, and an empty backlog is
// EAGAIN.
func TestAcceptFromReportsThePeer(t *testing.T) {
	for _, tt := range []struct{ listen, src string }{{"127.0.0.1", "127.0.0.3"}, {"::1", "::1"}} {
		lfd, to := loopbackListener(t, netip.MustParseAddr(tt.listen))
		var rsa unix.RawSockaddrAny
		if _, _, err := acceptFrom(lfd, &rsa); err != unix.EAGAIN {
			t.Fatalf("accept on an empty backlog: %v, want EAGAIN", err)
		}
		src := netip.MustParseAddr(tt.src)
		cfd := dialFrom(t, src, to)
		fd, from, err := acceptFrom(lfd, &rsa)
		unix.Close(cfd)
		if err != nil {
			t.Fatal(err)
		}
		unix.Close(fd)
		if from != src {
			t.Errorf("accepted from %v, want %v", from, src)
		}
	}
}

// BenchmarkAccept measures accepting one loopback connection (the client's
// connect and both closes included): with unix.Accept4, which allocates
// the address and asks the kernel whether the socket is a ping socket, and
// with acceptFrom, which the loops use.
func BenchmarkAccept(b *testing.B) {
	lo := netip.MustParseAddr("127.0.0.1")
	for _, bb := range []struct {
		name   string
		accept func(lfd int, rsa *unix.RawSockaddrAny) (int, error)
	}{
		{"x-sys", func(lfd int, _ *unix.RawSockaddrAny) (int, error) {
			fd, _, err := unix.Accept4(lfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
			return fd, err
		}},
		{"acceptFrom", func(lfd int, rsa *unix.RawSockaddrAny) (int, error) {
			fd, _, err := acceptFrom(lfd, rsa)
			return fd, err
		}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			lfd, to := loopbackListener(b, lo)
			var rsa unix.RawSockaddrAny
			b.ReportAllocs()
			for b.Loop() {
				cfd := dialFrom(b, lo, to)
				fd, err := bb.accept(lfd, &rsa)
				if err != nil {
					b.Fatal(err)
				}
				unix.Close(fd)
				unix.Close(cfd)
			}
		})
	}
}
