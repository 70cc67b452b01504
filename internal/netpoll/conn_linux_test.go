package netpoll

import (
	"testing"
	"unsafe"
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
