package tlsidle

import (
	"bytes"
	"crypto/tls"
	"errors"
	"net"
	"runtime"
	"testing"
	"unsafe"
	"weak"
)

// eachVersion runs f over a fresh server and client connection of each
// TLS version a wss:// client may negotiate.
func eachVersion(t *testing.T, f func(t *testing.T, server, client *tls.Conn)) {
	cfg := serverConfig(t)
	cfg.MinVersion = tls.VersionTLS12
	for _, v := range []uint16{tls.VersionTLS13, tls.VersionTLS12} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			server, client := pair(t, cfg, v)
			t.Cleanup(func() { server.Close(); client.Close() })
			if got := server.ConnectionState().Version; got != v {
				t.Fatalf("negotiated %s, want %s", tls.VersionName(got), tls.VersionName(v))
			}
			f(t, server, client)
		})
	}
}

// TestForgetKeepsTheConnectionWorking: after Forget (and Shrink between
// messages) every byte still arrives both ways, in records of every size.
func TestForgetKeepsTheConnectionWorking(t *testing.T) {
	eachVersion(t, func(t *testing.T, server, client *tls.Conn) {
		if !Forget(server) {
			t.Fatal("Forget did nothing after the handshake")
		}
		for _, n := range []int{1, 100, 16<<10 + 1, 70 << 10, 5} {
			exchange(t, server, client, bytes.Repeat([]byte{byte(n)}, n))
			Shrink(server)
		}
		if err := server.Handshake(); err != nil {
			t.Fatalf("Handshake after Forget: %v, want nil (already complete)", err)
		}
	})
}

// TestForgetReleasesTheSecrets: what Forget drops is no longer reachable
// from the connection, and the exporter says why it cannot answer.
func TestForgetReleasesTheSecrets(t *testing.T) {
	eachVersion(t, func(t *testing.T, server, _ *tls.Conn) {
		p := unsafe.Pointer(server)
		ekm := weak.Make(*(**byte)(unsafe.Add(p, handshakeFields.ekm))) // the exporter's closure
		var secret weak.Pointer[byte]
		if rs := *(*[]byte)(unsafe.Add(p, handshakeFields.resumptionSecret)); len(rs) > 0 {
			secret = weak.Make(&rs[0])
		}
		Forget(server)
		runtime.GC()
		if ekm.Value() != nil || secret.Value() != nil {
			t.Fatalf("still reachable after Forget: exporter %t, resumption secret %t", ekm.Value() != nil, secret.Value() != nil)
		}
		st := server.ConnectionState()
		if _, err := st.ExportKeyingMaterial("EXPERIMENTAL roost", nil, 32); !errors.Is(err, ErrForgotten) {
			t.Fatalf("ExportKeyingMaterial after Forget: %v, want ErrForgotten", err)
		}
		runtime.KeepAlive(server)
	})
}

// TestForgetLeavesClientsAlone: a client connection needs its resumption
// secret for the tickets the server sends after the handshake.
func TestForgetLeavesClientsAlone(t *testing.T) {
	eachVersion(t, func(t *testing.T, _, client *tls.Conn) {
		if Forget(client) {
			t.Fatal("Forget released a client connection's state")
		}
		st := client.ConnectionState()
		if _, err := st.ExportKeyingMaterial("EXPERIMENTAL roost", nil, 32); err != nil {
			t.Fatalf("client exporter: %v", err)
		}
	})
}

// TestForgetWaitsForTheHandshake: before its handshake a server connection
// still needs its handshake function.
func TestForgetWaitsForTheHandshake(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if Forget(tls.Server(a, serverConfig(t))) {
		t.Fatal("Forget released the state of a connection before its handshake")
	}
}
