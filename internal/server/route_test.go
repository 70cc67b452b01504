package server

import (
	"net"
	"testing"
)

func TestAdvertiseURLFromTheListenAddress(t *testing.T) {
	tests := []struct {
		addr string
		tls  bool
		want string
	}{
		{"127.0.0.1:6001", false, "http://127.0.0.1:6001"},
		{"10.0.0.5:443", true, "https://10.0.0.5:443"},
		{"[::1]:6001", false, "http://[::1]:6001"},
		{"0.0.0.0:6001", false, ""},
		{"[::]:6001", false, ""},
	}
	for _, tt := range tests {
		a, err := net.ResolveTCPAddr("tcp", tt.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := advertiseURL(a, tt.tls); got != tt.want {
			t.Errorf("advertiseURL(%s, tls %v) = %q, want %q", tt.addr, tt.tls, got, tt.want)
		}
	}
}
