package netpoll

import (
	"net/netip"
	"unsafe"

	"golang.org/x/sys/unix"
)

// acceptFrom accepts one connection on the non-blocking listening socket
// lfd and returns its descriptor (non-blocking, close-on-exec) and the
// client's address. It is accept4(2) with the address decoded in place:
// unix.Accept4 allocates a Sockaddr for every connection and, for IPv4,
// asks the kernel with one more system call (getsockopt SO_PROTOCOL)
// whether the socket is a ping socket, which a TCP listener never is.
func acceptFrom(lfd int, rsa *unix.RawSockaddrAny) (int, netip.Addr, error) {
	size := uint32(unix.SizeofSockaddrAny)
	fd, _, errno := unix.Syscall6(unix.SYS_ACCEPT4, uintptr(lfd), uintptr(unsafe.Pointer(rsa)),
		uintptr(unsafe.Pointer(&size)), unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0, 0)
	if errno != 0 {
		return -1, netip.Addr{}, errno
	}
	return int(fd), rawAddr(rsa), nil
}

// rawAddr returns the IP address in rsa; the zero Addr for a family that
// carries none.
func rawAddr(rsa *unix.RawSockaddrAny) netip.Addr {
	switch rsa.Addr.Family {
	case unix.AF_INET:
		return netip.AddrFrom4((*unix.RawSockaddrInet4)(unsafe.Pointer(rsa)).Addr)
	case unix.AF_INET6:
		return netip.AddrFrom16((*unix.RawSockaddrInet6)(unsafe.Pointer(rsa)).Addr).Unmap()
	}
	return netip.Addr{}
}
