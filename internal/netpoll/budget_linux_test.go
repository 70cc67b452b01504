package netpoll

import (
	"testing"
	"unsafe"
)

// TestConnSize guards what every connection, idle or not, costs in the Go
// heap: the per-turn budget's flag lives in the flags byte, and everything a
// busy connection needs is borrowed through x.
func TestConnSize(t *testing.T) {
	if size := unsafe.Sizeof(conn{}); size != 112 {
		t.Fatalf("conn is %d bytes, want 112", size)
	}
}
