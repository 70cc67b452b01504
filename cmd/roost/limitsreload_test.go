package main

import (
	"bufio"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
)

// limitsFile is a configuration whose max_connections_per_ip is perIP.
func limitsFile(perIP string) string {
	return "addr: 127.0.0.1:0\nlimits: {max_connections_per_ip: " + perIP + "}\n" +
		"apps: [{id: a, key: a-key, secret: a-secret}]\n"
}

// TestReloadLowersAConnectionCap runs `roost serve` as a process with
// three connections from one address, lowers max_connections_per_ip to 2
// by SIGHUP and checks that the next handshake is refused 503 while the
// three stay open, then raises it back and connects again.
func TestReloadLowersAConnectionCap(t *testing.T) {
	file := filepath.Join(t.TempDir(), "roost.yaml")
	writeFile(t, file, limitsFile("3"))
	node := startNode(t, file)
	var open []*testutil.Client
	for range 3 {
		open = append(open, testutil.Connect(t, node.ws("a-key"), nil))
	}
	writeFile(t, file, limitsFile("2"))
	node.hangup(t, "config reloaded")
	if code := handshakeStatus(t, node.addr, "a-key"); code != http.StatusServiceUnavailable {
		t.Fatalf("a handshake over the lowered cap: %d, want 503", code)
	}
	pingAll(t, open)
	writeFile(t, file, limitsFile("4"))
	node.hangup(t, "config reloaded")
	testutil.Connect(t, node.ws("a-key"), nil).Ping()
	pingAll(t, open)
}

// handshakeStatus sends a WebSocket handshake for key to addr and returns
// the status of the response.
func handshakeStatus(t *testing.T, addr, key string) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	req := "GET /app/" + key + "?protocol=7&client=js&version=8.4.0 HTTP/1.1\r\nHost: roost\r\nUpgrade: websocket\r\n" +
		"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
